"use client";

import { serverLooks, swatchStyle } from "@/lib/colours";
import { type Comparison, compareCells, environmentDifferences } from "@/lib/compare";
import type { CellDto } from "@/lib/dto";
import { type CellNumbering, cellNumber, levelLabel, workloadName } from "@/lib/labels";
import { CompareChart } from "./comparison-chart";
import { metrics } from "./comparison-metrics";
import {
  BusyMachineNote,
  EnvironmentNote,
  FailedCallsNote,
  OpenModelNote,
  SaturationNote,
  UnmeasuredNote,
  WarmingUpNote,
} from "./comparison-notes";
import { RoundsTable } from "./comparison-table";
import { panel } from "./ui";

const missingLabel = (cell: Comparison["missing"][number]) => {
  const level = levelLabel(cell);
  return `${cellNumber(cell)} ${cell.serverName}${level === null ? "" : ` · ${level}`} · r${cell.round} (${cell.status})`;
};

/**
 * Servers side by side per load level, rounds aggregated: shown when a run spans more than one
 * server or load level. Only succeeded cells with a summary count.
 */
export function ComparisonSection({
  cells,
  serverOrder,
  catalog,
}: {
  cells: (CellDto & CellNumbering)[];
  serverOrder: string[];
  /** The catalog's server names in its order: what the colours follow (lib/colours). */
  catalog: string[];
}) {
  const comparison = compareCells(cells, serverOrder);
  const { servers, workloads, missing, pending } = comparison;
  const looks = serverLooks(catalog, servers);
  if (workloads.length === 0 && missing.length === 0) return null;
  const maxRounds = Math.max(0, ...workloads.flatMap((w) => w.groups.map((g) => g.rounds)));
  const differences = environmentDifferences(cells);
  return (
    <section
      aria-label="Comparison"
      data-testid="comparison"
      data-servers={servers.length}
      data-groups={workloads.reduce((n, w) => n + w.groups.length, 0)}
    >
      <h2 className="mb-3 text-lg font-semibold">
        Comparison{" "}
        <span className="text-sm font-normal text-zinc-500 dark:text-zinc-400">
          {maxRounds > 1 ? "mean over rounds, whiskers span min–max" : "one round per bar"}
        </span>
      </h2>
      <div className={`${panel} space-y-5 p-5`}>
        <EnvironmentNote differences={differences} />
        <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm" data-testid="comparison-legend">
          {servers.map((server) => (
            <li key={server} className="flex items-center gap-1.5">
              <span
                aria-hidden
                className="inline-block size-3 rounded-sm"
                style={swatchStyle(looks.get(server)!)}
              />
              {server}
            </li>
          ))}
        </ul>
        {workloads.map((workload) => (
          <div key={workload.key} className="space-y-3">
            {workloads.length > 1 && (
              <h3 className="text-sm font-medium text-zinc-600 dark:text-zinc-300">
                {workload.scenario}
                {workloadName(workload) !== workload.scenario && ` (${workloadName(workload)})`}
              </h3>
            )}
            <div className="grid gap-6 lg:grid-cols-2">
              {metrics.map((metric) => (
                <CompareChart
                  key={metric.id}
                  workload={workload}
                  servers={servers}
                  looks={looks}
                  metric={metric}
                />
              ))}
            </div>
            <FailedCallsNote workload={workload} />
            <SaturationNote workload={workload} />
            <BusyMachineNote workload={workload} />
            <WarmingUpNote workload={workload} />
            <OpenModelNote workload={workload} />
            <UnmeasuredNote workload={workload} />
            <RoundsTable workload={workload} />
          </div>
        ))}
        {(missing.length > 0 || pending > 0) && (
          <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="comparison-missing">
            {missing.length > 0 && (
              <>
                Missing {missing.length === 1 ? "one cell" : `${missing.length} cells`} without a result:{" "}
                <span className="text-rose-600 dark:text-rose-400">
                  {missing.map(missingLabel).join(", ")}
                </span>
                .{" "}
              </>
            )}
            {pending > 0 && `${pending === 1 ? "One cell" : `${pending} cells`} not finished yet.`}
          </p>
        )}
      </div>
    </section>
  );
}
