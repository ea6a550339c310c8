"use client";

import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { maxOf, niceScale, secondTicks } from "@/lib/chart-axis";
import { seriesChartLabel } from "@/lib/chart-label";
import { formatMeasure, formatSecond, formatTick } from "@/lib/format";

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

/**
 * A value axis from 0 to a round top in round steps, its ticks printed as every chart prints them
 * (lib/chart-axis, formatTick): spread into a recharts YAxis.
 */
export function valueAxis(max: number) {
  const { top, ticks } = niceScale(max);
  return { domain: [0, top], ticks, interval: 0, tickFormatter: formatTick } as const;
}

/** A legend swatch drawn as its line is: the same colour and dash. */
export function LineSwatch({ color, dash }: { color: string; dash?: string }) {
  return (
    <svg aria-hidden width="28" height="8" className="shrink-0" viewBox="0 0 28 8">
      <line x1="1" y1="4" x2="27" y2="4" stroke={color} strokeWidth="2.5" strokeDasharray={dash} />
    </svg>
  );
}

/** One time-series chart: x is seconds since the load started (of each cell drawn). */
export function SeriesChart({
  testId,
  title,
  unit,
  valueUnit,
  rows,
  series,
  warmupSeconds,
  endSecond,
}: {
  testId: string;
  title: string;
  unit: string;
  /** The unit a tooltip prints after each value ("ms", "%"): `unit` describes the axis more fully. */
  valueUnit: string;
  rows: ChartRow[];
  series: Series[];
  warmupSeconds: number;
  endSecond: number;
}) {
  const end = Math.max(endSecond, 1);
  // A cell's points may start a second before its load (a wall-clock second's part): the axis with them.
  const start = Math.min(0, rows[0]?.second ?? 0);
  const at = (second: number) => formatSecond(second, end - start);
  return (
    <figure data-testid={testId} data-points={rows.length} data-series={series.length} className="min-w-0">
      <figcaption className="mb-2 text-sm font-medium">
        {title} <span className="font-normal text-zinc-500 dark:text-zinc-400">({unit})</span>
      </figcaption>
      <div
        className="h-56 text-zinc-500 dark:text-zinc-400"
        role="img"
        aria-label={seriesChartLabel(title, unit, rows, series, end)}
      >
        <ResponsiveContainer width="100%" height="100%">
          <LineChart
            data={rows}
            margin={{ top: 4, right: 12, bottom: 4, left: 0 }}
            // A picture of the numbers (named above), not a control: out of the tab order.
            accessibilityLayer={false}
          >
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
              domain={[start, end]}
              ticks={secondTicks(end, 6, start)}
              interval={0}
              tick={axisTick(11)}
              {...axisStyle}
              tickFormatter={at}
            />
            <YAxis
              tick={axisTick(11)}
              {...axisStyle}
              width={56}
              {...valueAxis(
                maxOf(
                  rows,
                  series.map((s) => s.key),
                ),
              )}
            />
            <Tooltip
              contentStyle={tooltipStyle}
              labelFormatter={(second) => (typeof second === "number" ? at(second) : second)}
              formatter={(value) =>
                typeof value === "number" ? `${formatMeasure(value)} ${valueUnit}` : value
              }
            />
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
      {series.length > 1 && (
        // Recharts' own legend draws every line solid: this one shows each line's dash (a round's).
        <ul
          className="mt-1 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-300"
          data-testid={`${testId}-legend`}
        >
          {series.map((s) => (
            <li key={s.key} className="flex items-center gap-1.5" data-dash={s.dash ?? "solid"}>
              <LineSwatch color={s.color} dash={s.dash} />
              {s.name}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
