"use client";

import { useState } from "react";
import { dashOf, repeatsOf, serverColour } from "@/lib/colours";
import type { CellDto, PointDto } from "@/lib/dto";
import { type OverlayMetric, overlayGroups, overlayMetrics, overlayRows } from "@/lib/overlay";
import { SeriesChart } from "./series-chart";
import { panel } from "./ui";

/**
 * The cells of one workload and load level on one time axis: servers (their rounds, their runs in a
 * comparison of runs) side by side as curves — memory growth, throughput drift, latency spikes — where the comparison bars give only
 * one number per cell. Follows live points while cells run.
 */
export function OverlayCharts({
  cells,
  points,
  serverOrder,
  catalog,
}: {
  cells: CellDto[];
  points: Record<string, PointDto[]>;
  serverOrder: string[];
  /** The catalog's server names in its order: what the colours follow (lib/colours). */
  catalog: string[];
}) {
  const [pickedGroup, setPickedGroup] = useState<string | null>(null);
  const [metric, setMetric] = useState<OverlayMetric>("rps");
  const groups = overlayGroups(cells, points, serverOrder);
  if (groups.length === 0) return null;
  const group = groups.find((g) => g.key === pickedGroup) ?? groups[0]!;
  const shown = overlayMetrics.find((m) => m.id === metric)!;
  // A server's lines (its rounds, or its runs in a comparison of runs) share its colour and differ
  // by dash: solid first, then a dash of their own.
  const repeats = repeatsOf(group.lines.map((line) => ({ key: line.cellId, serverName: line.serverName })));
  return (
    <section aria-label="Over time" data-testid="overlay" data-groups={groups.length} data-metric={metric}>
      <h2 className="mb-3 text-lg font-semibold">
        Over time{" "}
        <span className="text-sm font-normal text-zinc-500 dark:text-zinc-400">
          one line per cell, seconds since its load started
        </span>
      </h2>
      <div className={`${panel} space-y-4 p-5`}>
        <div className="flex flex-wrap items-center gap-4">
          {groups.length > 1 && (
            <label className="flex items-center gap-2 text-sm">
              <span className="text-zinc-600 dark:text-zinc-300">Workload</span>
              <select
                data-testid="overlay-group"
                value={group.key}
                onChange={(e) => setPickedGroup(e.target.value)}
                className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
              >
                {groups.map((g) => (
                  <option key={g.key} value={g.key}>
                    {g.label}
                  </option>
                ))}
              </select>
            </label>
          )}
          <fieldset className="flex flex-wrap gap-1">
            <legend className="sr-only">Metric</legend>
            {overlayMetrics.map((m) => (
              <button
                key={m.id}
                type="button"
                data-testid={`overlay-metric-${m.id}`}
                aria-pressed={m.id === metric}
                onClick={() => setMetric(m.id)}
                className={`rounded-md px-2.5 py-1 text-sm ${
                  m.id === metric
                    ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                    : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
                }`}
              >
                {m.title}
              </button>
            ))}
          </fieldset>
        </div>
        <SeriesChart
          testId="overlay-chart"
          title={`${shown.title} · ${group.label}`}
          unit={shown.unit}
          valueUnit={shown.valueUnit}
          rows={overlayRows(group, points, metric)}
          series={group.lines.map((line) => ({
            key: line.cellId,
            name: line.label,
            color: serverColour(catalog, line.serverName),
            dash: dashOf((repeats.get(line.cellId) ?? 0) + 1),
          }))}
          warmupSeconds={group.warmupSeconds}
          endSecond={group.endSecond}
        />
      </div>
    </section>
  );
}
