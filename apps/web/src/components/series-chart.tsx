"use client";

import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

export type Series = { key: string; name: string; color: string; dash?: string };
export type ChartRow = { second: number } & Record<string, number | null>;

/** One axis look for every chart: ink follows the text colour (dark mode), lines stay faint. */
export const axisStyle = { stroke: "currentColor", strokeOpacity: 0.3 } as const;
export const axisTick = (fontSize: number) => ({ fill: "currentColor", fontSize });

export const tooltipStyle = {
  background: "var(--chart-tooltip-bg)",
  border: "1px solid var(--chart-tooltip-border)",
  borderRadius: 6,
  fontSize: 12,
};

/** One time-series chart: x is seconds since the load started (of each cell drawn). */
export function SeriesChart({
  testId,
  title,
  unit,
  rows,
  series,
  warmupSeconds,
  endSecond,
}: {
  testId: string;
  title: string;
  unit: string;
  rows: ChartRow[];
  series: Series[];
  warmupSeconds: number;
  endSecond: number;
}) {
  return (
    <figure data-testid={testId} data-points={rows.length} data-series={series.length} className="min-w-0">
      <figcaption className="mb-2 text-sm font-medium">
        {title} <span className="font-normal text-zinc-500 dark:text-zinc-400">({unit})</span>
      </figcaption>
      <div className="h-56 text-zinc-500 dark:text-zinc-400">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 4, right: 12, bottom: 4, left: 0 }}>
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            {warmupSeconds > 0 && (
              <ReferenceArea
                x1={0}
                x2={warmupSeconds}
                fill="var(--chart-warmup)"
                fillOpacity={1}
                ifOverflow="extendDomain"
                label={{ value: "warm-up", position: "insideTopLeft", fill: "currentColor", fontSize: 11 }}
              />
            )}
            <XAxis
              dataKey="second"
              type="number"
              domain={[0, Math.max(endSecond, 1)]}
              allowDecimals={false}
              tick={axisTick(11)}
              {...axisStyle}
              unit=" s"
            />
            <YAxis tick={axisTick(11)} {...axisStyle} width={56} allowDecimals />
            <Tooltip
              contentStyle={tooltipStyle}
              labelFormatter={(second) => `${second} s`}
              formatter={(value) => (typeof value === "number" ? value.toFixed(value < 10 ? 2 : 1) : value)}
            />
            {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
            {series.map((s) => (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.name}
                stroke={s.color}
                strokeDasharray={s.dash}
                dot={false}
                strokeWidth={1.75}
                isAnimationActive={false}
                connectNulls
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
