"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { CellDto, LatencyDto } from "@/lib/dto";
import { cellLabel } from "@/lib/labels";
import { axisStyle, axisTick, tooltipStyle } from "./series-chart";

const percentiles: { key: keyof LatencyDto; label: string }[] = [
  { key: "p50", label: "p50" },
  { key: "p90", label: "p90" },
  { key: "p95", label: "p95" },
  { key: "p99", label: "p99" },
  { key: "p999", label: "p99.9" },
];
const palette = ["#0ea5e9", "#f59e0b", "#10b981", "#8b5cf6", "#f43f5e", "#64748b", "#14b8a6", "#eab308"];

/** Latency percentiles side by side: one group per percentile, one bar per finished cell. */
export function PercentileChart({ cells }: { cells: CellDto[] }) {
  const done = cells.filter((c) => c.summary !== null);
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
      <div className="h-72 text-zinc-500 dark:text-zinc-400">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ top: 4, right: 12, bottom: 4, left: 0 }}>
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="percentile" tick={axisTick(12)} {...axisStyle} />
            <YAxis tick={axisTick(11)} {...axisStyle} width={56} />
            <Tooltip
              contentStyle={tooltipStyle}
              cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
              formatter={(value) => (typeof value === "number" ? `${value.toFixed(2)} ms` : value)}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {done.map((cell, i) => (
              <Bar
                key={cell.id}
                dataKey={cell.id}
                name={cellLabel(cell)}
                fill={palette[i % palette.length]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
