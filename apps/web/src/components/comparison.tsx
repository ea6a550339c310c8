"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { colourOf } from "@/lib/colours";
import { type Comparison, type ComparisonGroup, compareCells, type Stat, type Workload } from "@/lib/compare";
import type { CellDto } from "@/lib/dto";
import { bytesToMb, formatInt, formatRate, formatRatio } from "@/lib/format";
import { vusLabel } from "@/lib/labels";
import { axisStyle, axisTick } from "./series-chart";
import { panel } from "./ui";

type Metric = {
  id: "ops" | "p99" | "rss" | "efficiency";
  title: string;
  unit: string;
  /** Short unit for the tooltip's heading. */
  short: string;
  pick: (group: ComparisonGroup) => Stat | null;
  /** A bare number in the metric's unit. */
  format: (value: number) => string;
};

const scale = (s: Stat | null, by: (v: number) => number): Stat | null =>
  s && { ...s, mean: by(s.mean), sd: by(s.sd), min: by(s.min), max: by(s.max) };

const msNumber = (ms: number) => (ms < 10 ? formatRatio(ms) : formatRate(ms));

const metrics: Metric[] = [
  {
    id: "ops",
    title: "Throughput",
    unit: "ops/s, MCP tool calls per second",
    short: "ops/s",
    pick: (g) => g.opsRps,
    format: formatRate,
  },
  {
    id: "p99",
    title: "Latency p99",
    unit: "ms, measured window",
    short: "ms",
    pick: (g) => g.p99Ms,
    format: msNumber,
  },
  {
    id: "rss",
    title: "Peak memory",
    unit: "server RSS, MB",
    short: "MB",
    pick: (g) => scale(g.rssPeakBytes, (v) => bytesToMb(v)!),
    format: formatRate,
  },
  {
    id: "efficiency",
    title: "Calls per CPU-second",
    unit: "ops/s per core of server CPU",
    short: "ops/CPU-s",
    pick: (g) => g.opsPerCpuSecond,
    format: formatRate,
  },
];

type Row = { level: string; stats: Record<string, Stat | null>; rounds: Record<string, number> };

const levelLabel = (vus: number | null) => (vus === null ? "—" : vusLabel(vus));

function rowsFor(workload: Workload, metric: Metric): Row[] {
  return workload.levels.map((vus) => {
    const groups = workload.groups.filter((g) => g.vus === vus);
    return {
      level: levelLabel(vus),
      stats: Object.fromEntries(groups.map((g) => [g.serverName, metric.pick(g)])),
      rounds: Object.fromEntries(groups.map((g) => [g.serverName, g.rounds])),
    };
  });
}

/** The whisker spans the rounds' min–max; a single round has none. */
const whisker = (s: Stat | null | undefined): [number, number] | undefined =>
  s && s.n > 1 ? [s.mean - s.min, s.max - s.mean] : undefined;

function CompareTooltip({
  active,
  payload,
  label,
  servers,
  metric,
}: {
  active?: boolean;
  payload?: readonly { payload?: Row }[];
  label?: string | number;
  servers: string[];
  metric: Metric;
}) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  const shown = servers.filter((server) => row.stats[server]);
  const spread = shown.some((server) => row.stats[server]!.n > 1);
  const cell = "py-0.5 pl-3 text-right tabular-nums";
  return (
    <div
      className="whitespace-nowrap rounded-md border px-3 py-2 text-xs shadow-sm"
      style={{ background: "var(--chart-tooltip-bg)", borderColor: "var(--chart-tooltip-border)" }}
    >
      <table className="text-zinc-700 dark:text-zinc-300">
        <thead>
          <tr className="text-zinc-500 dark:text-zinc-400">
            <th className="pb-1 text-left font-medium text-zinc-900 dark:text-zinc-100">{label}</th>
            <th className={`${cell} pb-1 font-normal`}>{metric.short}</th>
            {spread && (
              <>
                <th className={`${cell} pb-1 font-normal`}>± sd</th>
                <th className={`${cell} pb-1 font-normal`}>min–max</th>
                <th className={`${cell} pb-1 font-normal`}>rounds</th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {shown.map((server) => {
            const s = row.stats[server]!;
            return (
              <tr key={server}>
                <td className="py-0.5">
                  <span
                    className="mr-1.5 inline-block size-2 rounded-sm"
                    style={{ background: colourOf(servers, server) }}
                  />
                  {server}
                </td>
                <td className={`${cell} font-medium text-zinc-900 dark:text-zinc-100`}>
                  {metric.format(s.mean)}
                </td>
                {spread && (
                  <>
                    <td className={cell}>{s.n > 1 ? metric.format(s.sd) : "—"}</td>
                    <td className={cell}>
                      {s.n > 1 ? `${metric.format(s.min)}–${metric.format(s.max)}` : "—"}
                    </td>
                    <td className={cell}>{s.n}</td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function CompareChart({
  workload,
  servers,
  metric,
}: {
  workload: Workload;
  servers: string[];
  metric: Metric;
}) {
  const rows = rowsFor(workload, metric);
  const bars = workload.servers;
  return (
    <figure
      data-testid={`compare-chart-${metric.id}`}
      data-levels={rows.length}
      data-servers={bars.length}
      className="min-w-0"
    >
      <figcaption className="mb-2 text-sm font-medium">
        {metric.title} <span className="font-normal text-zinc-500 dark:text-zinc-400">({metric.unit})</span>
      </figcaption>
      <div className="h-60 text-zinc-500 dark:text-zinc-400">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 4, left: 0 }} barCategoryGap="22%">
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="level" tick={axisTick(12)} {...axisStyle} />
            <YAxis
              tick={axisTick(11)}
              {...axisStyle}
              width={52}
              tickFormatter={(v: number) => (Math.abs(v) >= 1000 ? formatInt(v) : String(v))}
            />
            <Tooltip
              cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
              content={<CompareTooltip servers={servers} metric={metric} />}
            />
            {bars.map((server) => (
              <Bar
                key={server}
                name={server}
                dataKey={(row: Row) => row.stats[server]?.mean ?? null}
                fill={colourOf(servers, server)}
                radius={[3, 3, 0, 0]}
                maxBarSize={48}
                isAnimationActive={false}
              >
                <ErrorBar
                  dataKey={(row: Row) => whisker(row.stats[server])}
                  stroke="currentColor"
                  strokeWidth={1.25}
                  width={4}
                  isAnimationActive={false}
                />
              </Bar>
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/**
 * Names the bars whose throughput k6 capped: there ops/s says how fast the load generator was, and
 * only the CPU-second figure still compares the servers.
 */
function SaturationNote({ workload }: { workload: Workload }) {
  const capped = workload.groups.filter((g) => g.k6SaturatedRounds > 0);
  if (capped.length === 0) return null;
  const label = (g: Workload["groups"][number]) =>
    `${g.serverName}${g.vus === null ? "" : ` at ${vusLabel(g.vus)}`}${
      g.rounds > 1 ? ` (${g.k6SaturatedRounds} of ${g.rounds} rounds)` : ""
    }`;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-saturated">
      k6 was saturated for {capped.map(label).join(", ")}: the load generator, not the server, set that
      throughput. Compare those servers by calls per CPU-second, or give k6 more room (fewer server cores
      under the docker driver, or k6 on another machine).
    </p>
  );
}

const missingLabel = (cell: Comparison["missing"][number]) =>
  `#${cell.index} ${cell.serverName}${cell.vus === null ? "" : ` · ${vusLabel(cell.vus)}`} · r${cell.round} (${cell.status})`;

/**
 * Servers side by side per load level, rounds aggregated: shown when a run spans more than one
 * server or load level. Only succeeded cells with a summary count.
 */
export function ComparisonSection({ cells, serverOrder }: { cells: CellDto[]; serverOrder: string[] }) {
  const comparison = compareCells(cells, serverOrder);
  const { servers, workloads, missing, pending } = comparison;
  if (workloads.length === 0 && missing.length === 0) return null;
  const maxRounds = Math.max(0, ...workloads.flatMap((w) => w.groups.map((g) => g.rounds)));
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
        <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm" data-testid="comparison-legend">
          {servers.map((server) => (
            <li key={server} className="flex items-center gap-1.5">
              <span
                aria-hidden
                className="inline-block size-3 rounded-sm"
                style={{ background: colourOf(servers, server) }}
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
                {workload.tool && ` (${workload.tool})`}
              </h3>
            )}
            <div className="grid gap-6 lg:grid-cols-2">
              {metrics.map((metric) => (
                <CompareChart key={metric.id} workload={workload} servers={servers} metric={metric} />
              ))}
            </div>
            <SaturationNote workload={workload} />
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
