"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { maxOf } from "@/lib/chart-axis";
import { cellLooks, swatchStyle } from "@/lib/colours";
import type { CellDto, LatencyDto } from "@/lib/dto";
import { formatMs } from "@/lib/format";
import { type CellNumbering, cellLabel } from "@/lib/labels";
import { axisStyle, axisTick, tooltipStyle, valueAxis } from "./series-chart";

const percentiles: { key: keyof LatencyDto; label: string }[] = [
  { key: "p50", label: "p50" },
  { key: "p90", label: "p90" },
  { key: "p95", label: "p95" },
  { key: "p99", label: "p99" },
  { key: "p999", label: "p99.9" },
];
/** Latency percentiles side by side: one group per percentile, one bar per finished cell. */
export function PercentileChart({
  cells,
  catalog,
}: {
  cells: (CellDto & CellNumbering)[];
  catalog: string[];
}) {
  const done = cells.filter((c) => c.summary !== null);
  const looks = cellLooks(done, catalog);
  const rows = percentiles.map(({ key, label }) => ({
    percentile: label,
    ...Object.fromEntries(done.map((cell) => [cell.id, cell.summary!.latency[key]])),
  }));
  return (
    <figure data-testid="percentile-chart" data-cells={done.length} className="min-w-0">
      <figcaption className="mb-2 text-sm font-medium">
        Latency percentiles{" "}
        <span className="font-normal text-zinc-500 dark:text-zinc-400">(ms, measured window)</span>
      </figcaption>
      <div
        className="h-72 text-zinc-500 dark:text-zinc-400"
        role="img"
        aria-label={`Latency percentiles (ms, measured window), p50 to p99.9 per cell. ${done
          .map(
            (cell) =>
              `${cellLabel(cell)}: p50 ${formatMs(cell.summary!.latency.p50)}, p99 ${formatMs(cell.summary!.latency.p99)}`,
          )
          .join(". ")}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={rows}
            margin={{ top: 4, right: 12, bottom: 4, left: 0 }}
            // A picture of the numbers (named above, and in the summary table), not a control.
            accessibilityLayer={false}
          >
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="percentile" tick={axisTick(12)} {...axisStyle} />
            <YAxis
              tick={axisTick(11)}
              {...axisStyle}
              width={56}
              {...valueAxis(
                maxOf(
                  rows,
                  done.map((cell) => cell.id),
                ),
              )}
            />
            <Tooltip
              contentStyle={tooltipStyle}
              cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
              formatter={(value) => (typeof value === "number" ? formatMs(value) : value)}
            />
            {done.map((cell) => {
              const look = looks.get(cell.id)!;
              return (
                <Bar
                  key={cell.id}
                  dataKey={cell.id}
                  name={cellLabel(cell)}
                  fill={look.colour}
                  fillOpacity={look.opacity}
                  stroke={look.colour}
                  strokeWidth={look.opacity < 1 ? 1 : 0}
                  isAnimationActive={false}
                />
              );
            })}
          </BarChart>
        </ResponsiveContainer>
      </div>
      {/* Recharts' own legend would draw every swatch in full: this one shows the rounds' fainter bars. */}
      <ul
        className="mt-2 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-300"
        data-testid="percentile-legend"
      >
        {done.map((cell) => (
          <li key={cell.id} className="flex items-center gap-1.5">
            <span
              aria-hidden
              className="inline-block size-2.5 rounded-sm"
              style={swatchStyle(looks.get(cell.id)!)}
            />
            {cellLabel(cell)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
