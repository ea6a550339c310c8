"use client";

import { useId, useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { maxOf } from "@/lib/chart-axis";
import { cellLooks, swatchStyle } from "@/lib/colours";
import type { CellDto, LatencyDto } from "@/lib/dto";
import { formatMs, formatTick } from "@/lib/format";
import { type CellNumbering, cellLabel } from "@/lib/labels";
import { barLook, LookPatterns } from "./look-patterns";
import { axisStyle, axisTick, tooltipStyle, valueAxis } from "./series-chart";

const percentiles: { key: keyof LatencyDto; label: string }[] = [
  { key: "p50", label: "p50" },
  { key: "p90", label: "p90" },
  { key: "p95", label: "p95" },
  { key: "p99", label: "p99" },
  { key: "p999", label: "p99.9" },
];
/** Powers of ten from at or below `low` to at or above `high`: a log axis's ticks. */
function logTicks(low: number, high: number): number[] {
  const from = Math.floor(Math.log10(low));
  const to = Math.max(from + 1, Math.ceil(Math.log10(high)));
  return Array.from({ length: to - from + 1 }, (_, i) => Number((10 ** (from + i)).toPrecision(12)));
}

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
  const patterns = useId().replace(/[^a-zA-Z0-9-]/g, "");
  const values = done.flatMap((cell) => percentiles.flatMap(({ key }) => cell.summary!.latency[key] ?? []));
  const positive = values.filter((v) => v > 0);
  const low = positive.length > 0 ? Math.min(...positive) : 0;
  const high = Math.max(0, ...values);
  // A linear axis flattens a 0.2 ms p50 beside a 17 ms p99.9: past a tenfold spread, start on log.
  const [picked, setLog] = useState<boolean | null>(null);
  const log = positive.length > 0 && (picked ?? high / low >= 10);
  const decades = logTicks(low, high);
  const rows = percentiles.map(({ key, label }) => ({
    percentile: label,
    ...Object.fromEntries(done.map((cell) => [cell.id, cell.summary!.latency[key]])),
  }));
  return (
    <figure data-testid="percentile-chart" data-cells={done.length} className="min-w-0">
      <figcaption className="mb-2 flex flex-wrap items-center justify-between gap-2 text-sm font-medium">
        <span>
          Latency percentiles{" "}
          <span className="font-normal text-zinc-500 dark:text-zinc-400">
            (ms, measured window{log ? ", log scale" : ""})
          </span>
        </span>
        {positive.length > 0 && (
          <label className="flex items-center gap-1.5 text-xs font-normal text-zinc-600 dark:text-zinc-300">
            <input
              type="checkbox"
              data-testid="percentile-log"
              checked={log}
              onChange={(e) => setLog(e.target.checked)}
            />
            Log scale
          </label>
        )}
      </figcaption>
      <div
        className="h-72 text-zinc-500 dark:text-zinc-400"
        role="img"
        aria-label={`Latency percentiles (ms, measured window${log ? ", log scale" : ""}), p50 to p99.9 per cell. ${done
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
            <LookPatterns prefix={patterns} looks={looks.values()} />
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="percentile" tick={axisTick(12)} {...axisStyle} />
            {log ? (
              <YAxis
                tick={axisTick(11)}
                {...axisStyle}
                width={56}
                scale="log"
                domain={[decades[0]!, decades.at(-1)!]}
                ticks={decades}
                interval={0}
                allowDataOverflow
                tickFormatter={formatTick}
              />
            ) : (
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
            )}
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
                  {...barLook(patterns, look)}
                  isAnimationActive={false}
                />
              );
            })}
          </BarChart>
        </ResponsiveContainer>
      </div>
      {/* Recharts' own legend would draw every swatch plain: this one shows the bars' opacity and hatch. */}
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
