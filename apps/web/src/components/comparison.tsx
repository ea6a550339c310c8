"use client";

import { useId } from "react";
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type SeriesLook, serverLooks, swatchStyle } from "@/lib/colours";
import {
  type Comparison,
  type ComparisonGroup,
  type ComparisonLevel,
  compareCells,
  type EnvironmentDifference,
  environmentDifferences,
  groupsAtLevel,
  levelKey,
  NOISY_CV,
  type Stat,
  versusFastest,
  versusKind,
  type Workload,
} from "@/lib/compare";
import type { CellDto } from "@/lib/dto";
import { bytesToMb, formatMeasure, formatPct, formatRate, formatRatio } from "@/lib/format";
import {
  type CellNumbering,
  capitalized,
  cellNumber,
  levelLabel,
  operationsName,
  operationWord,
  workloadName,
} from "@/lib/labels";
import { barLook, LookPatterns } from "./look-patterns";
import { axisStyle, axisTick, valueAxis } from "./series-chart";
import { panel, table, tbody, td, tdNum, th, thNum } from "./ui";

/** Title and units name the workload's own operations (see operationWord): requests, or tool calls. */
type Metric = {
  id: "ops" | "p99" | "rss" | "efficiency";
  title: (scenario: string) => string;
  unit: (scenario: string) => string;
  /** Short unit for the tooltip's heading. */
  short: (scenario: string) => string;
  pick: (group: ComparisonGroup) => Stat | null;
  /** A bare number in the metric's unit. */
  format: (value: number) => string;
};

const scale = (s: Stat | null, by: (v: number) => number): Stat | null =>
  s && {
    ...s,
    mean: by(s.mean),
    sd: by(s.sd),
    min: by(s.min),
    max: by(s.max),
    ci95: s.ci95 && [by(s.ci95[0]), by(s.ci95[1])],
  };

const msNumber = (ms: number) => formatMeasure(ms);

const metrics: Metric[] = [
  {
    id: "ops",
    title: () => "Throughput",
    unit: (scenario) => `${operationsName(scenario)} per second`,
    short: (scenario) => `${operationWord(scenario)}/s`,
    pick: (g) => g.opsRps,
    format: formatRate,
  },
  {
    id: "p99",
    title: () => "Latency p99",
    unit: () => "ms, measured window",
    short: () => "ms",
    pick: (g) => g.p99Ms,
    format: msNumber,
  },
  {
    id: "rss",
    title: () => "Peak memory",
    unit: () => "server RSS, MB",
    short: () => "MB",
    pick: (g) => scale(g.rssPeakBytes, (v) => bytesToMb(v)!),
    format: formatRate,
  },
  {
    id: "efficiency",
    title: (scenario) => `${operationsName(scenario)} per CPU-second`,
    unit: (scenario) => `${operationWord(scenario)}/s per core of server CPU`,
    short: (scenario) => `${operationWord(scenario)}/CPU-s`,
    pick: (g) => g.opsPerCpuSecond,
    format: formatRate,
  },
];

type Row = { level: string; stats: Record<string, Stat | null>; rounds: Record<string, number> };

/**
 * A level's heading: "50 VUs" (closed model), "500 calls/s" or "500 requests/s" (open model, in the
 * scenario's words), "—" for neither.
 */
const levelHeading = (level: ComparisonLevel, scenario: string) => levelLabel({ ...level, scenario }) ?? "—";

/**
 * The level in a row's test id: its VUs as before the open model ("comparison-row-go-50"), "none"
 * without a level, "rate500" for an open-model level.
 */
const levelTestId = (level: ComparisonLevel) =>
  level.rate !== null ? `rate${level.rate}` : `${level.vus ?? "none"}`;

function rowsFor(workload: Workload, metric: Metric): Row[] {
  return workload.levels.map((level) => {
    const groups = groupsAtLevel(workload.groups, level);
    return {
      level: levelHeading(level, workload.scenario),
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
  looks,
  metric,
  scenario,
}: {
  active?: boolean;
  payload?: readonly { payload?: Row }[];
  label?: string | number;
  servers: string[];
  looks: Map<string, SeriesLook>;
  metric: Metric;
  scenario: string;
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
            <th className={`${cell} pb-1 font-normal`}>{metric.short(scenario)}</th>
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
                    style={swatchStyle(looks.get(server)!)}
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

/** What a comparison chart shows, for a screen reader: each level's bars, "10 VUs: go 1,234.5, node 980.1". */
function compareChartLabel(workload: Workload, metric: Metric, rows: Row[], servers: string[]): string {
  const levels = rows.map((row) => {
    const bars = servers.flatMap((server) => {
      const s = row.stats[server];
      return s ? [`${server} ${metric.format(s.mean)}`] : [];
    });
    return `${row.level}: ${bars.join(", ")}`;
  });
  return `${metric.title(workload.scenario)} (${metric.unit(workload.scenario)}), mean over rounds by load level. ${levels.join(". ")}`;
}

function CompareChart({
  workload,
  servers,
  looks,
  metric,
}: {
  workload: Workload;
  servers: string[];
  /** Each server's colour on every chart (lib/colours), fainter for a server's repeat (another run). */
  looks: Map<string, SeriesLook>;
  metric: Metric;
}) {
  const rows = rowsFor(workload, metric);
  const bars = workload.servers;
  const patterns = useId().replace(/[^a-zA-Z0-9-]/g, "");
  return (
    <figure
      data-testid={`compare-chart-${metric.id}`}
      data-levels={rows.length}
      data-servers={bars.length}
      className="min-w-0"
    >
      <figcaption className="mb-2 text-sm font-medium">
        {metric.title(workload.scenario)}{" "}
        <span className="font-normal text-zinc-500 dark:text-zinc-400">
          ({metric.unit(workload.scenario)})
        </span>
      </figcaption>
      <div
        className="h-60 text-zinc-500 dark:text-zinc-400"
        role="img"
        aria-label={compareChartLabel(workload, metric, rows, bars)}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={rows}
            margin={{ top: 8, right: 8, bottom: 4, left: 0 }}
            barCategoryGap="22%"
            // A picture of the numbers (named above, and in the table below), not a control.
            accessibilityLayer={false}
          >
            <LookPatterns prefix={patterns} looks={looks.values()} />
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="level" tick={axisTick(12)} {...axisStyle} />
            <YAxis
              tick={axisTick(11)}
              {...axisStyle}
              width={52}
              // The whiskers' tops too: a bar's max round stays on the axis.
              {...valueAxis(
                Math.max(0, ...rows.flatMap((row) => Object.values(row.stats).map((s) => s?.max ?? 0))),
              )}
            />
            <Tooltip
              cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
              content={
                <CompareTooltip
                  servers={servers}
                  looks={looks}
                  metric={metric}
                  scenario={workload.scenario}
                />
              }
            />
            {bars.map((server) => (
              <Bar
                key={server}
                name={server}
                dataKey={(row: Row) => row.stats[server]?.mean ?? null}
                {...barLook(patterns, looks.get(server)!)}
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
 * The bars with rounds flagged by `count`, named for a note ("go at 10 VUs (1 of 3 rounds), rust"),
 * or null if none was.
 */
function flaggedGroups(
  workload: Workload,
  count: "k6SaturatedRounds" | "machineBusyRounds" | "warmingUpRounds",
): string | null {
  const flagged = workload.groups.filter((g) => g[count] > 0);
  if (flagged.length === 0) return null;
  return flagged
    .map((g) => {
      const level = levelLabel({ ...g, scenario: workload.scenario });
      return `${g.serverName}${level === null ? "" : ` at ${level}`}${
        g.rounds > 1 ? ` (${g[count]} of ${g.rounds} rounds)` : ""
      }`;
    })
    .join(", ");
}

/**
 * Names the bars whose calls failed: ops/s counts every call that ended, so a server answering fast
 * with errors would otherwise look fast.
 */
function FailedCallsNote({ workload }: { workload: Workload }) {
  const failing = workload.groups.filter((g) => (g.failedCallsPct?.mean ?? 0) > 0);
  if (failing.length === 0) return null;
  const named = failing
    .map((g) => {
      const level = levelLabel({ ...g, scenario: workload.scenario });
      const pct = g.failedCallsPct!.mean;
      return `${g.serverName}${level === null ? "" : ` at ${level}`} (${pct < 0.1 ? pct.toPrecision(1) : pct.toFixed(1)} %)`;
    })
    .join(", ");
  return (
    <p className="text-sm text-red-700 dark:text-red-400" data-testid="comparison-failed-calls">
      Some {operationWord(workload.scenario, 2)} failed for {named}: throughput counts the failed ones too, so
      it overstates what those servers did. The cells&rsquo; errors are on the run page.
    </p>
  );
}

/**
 * Names the bars whose throughput k6 capped: there ops/s says how fast the load generator was, and
 * only the per-CPU-second figure still compares the servers.
 */
function SaturationNote({ workload }: { workload: Workload }) {
  const capped = flaggedGroups(workload, "k6SaturatedRounds");
  if (capped === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-saturated">
      k6 was saturated for {capped}: the load generator, not the server, set that throughput. Compare those
      servers by {operationsName(workload.scenario)} per CPU-second, or give k6 more room (fewer server cores
      under the docker driver, or k6 on another machine).
    </p>
  );
}

/**
 * Names the bars measured while other work took a quarter of the machine or more: the server and
 * k6 competed with it, so those numbers are the machine's as much as the server's.
 */
function BusyMachineNote({ workload }: { workload: Workload }) {
  const busy = flaggedGroups(workload, "machineBusyRounds");
  if (busy === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-machine-busy">
      The machine was busy with other work while perflab measured {busy}: other processes used a quarter of it
      or more, and the server and k6 competed with them. Run those cells again on a quiet machine before
      comparing them.
    </p>
  );
}

/**
 * Names the bars whose server was still getting faster while they measured: their numbers hold the
 * end of a warm-up (a JIT's first minute) and understate the server against those already steady.
 */
function WarmingUpNote({ workload }: { workload: Workload }) {
  const warming = flaggedGroups(workload, "warmingUpRounds");
  if (warming === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-warming-up">
      The server was still getting faster while perflab measured {warming}: the last tenth of the measured
      window made a quarter more {operationWord(workload.scenario, 2)} per second than the first or more (a
      JIT compiling, caches filling). Those bars hold the end of a warm-up; queue them again with a longer
      one.
    </p>
  );
}

/**
 * Under the open model k6 offers a fixed rate: throughput there says whether a server kept up, not
 * how fast it can go.
 */
function OpenModelNote({ workload }: { workload: Workload }) {
  if (!workload.levels.some((l) => l.rate !== null)) return null;
  const ops = operationWord(workload.scenario);
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="comparison-open-model">
      At {ops}/s levels (open model) k6 starts {ops} at a fixed rate: throughput shows whether a server kept
      up with it, not how fast it could go. Compare those servers by latency, memory and{" "}
      {operationsName(workload.scenario)} per CPU-second.
    </p>
  );
}

const aspectText: Record<EnvironmentDifference["aspect"], string> = {
  machine: "different machines",
  k6: "different k6 builds",
  limits: "different limits",
  window: "different measured windows",
  runtime: "a server under different runtime versions",
};

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * Warns when the cells side by side did not run alike: several worker hosts share one queue, so a
 * run's cells can land on different machines, and a ranking across machines measures the machines.
 */
function EnvironmentNote({ differences }: { differences: EnvironmentDifference[] }) {
  if (differences.length === 0) return null;
  return (
    <div
      role="note"
      data-testid="comparison-environment"
      className="space-y-1 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200"
    >
      <p className="font-medium">
        These results were not all measured alike: {differences.map((d) => aspectText[d.aspect]).join(", ")}.
        Compare servers only within cells that share them (each cell&rsquo;s environment is on its run page).
      </p>
      <ul className="list-disc pl-5">
        {differences.flatMap((d) =>
          d.variants.map((v) => (
            <li key={`${d.aspect}:${v.label}`} data-aspect={d.aspect}>
              {v.label}: {plural(v.cells, "cell")} ({v.servers.join(", ")})
            </li>
          )),
        )}
      </ul>
    </div>
  );
}

/** The interval as printed: a rate is never negative, so a wide interval of few rounds stops at 0. */
const interval = (s: Stat, format: (v: number) => string) =>
  s.ci95 ? `${format(Math.max(0, s.ci95[0]))}–${format(s.ci95[1])}` : "—";

const withSd = (s: Stat | null, format: (v: number) => string) =>
  s === null ? "—" : s.n > 1 ? `${format(s.mean)} ± ${format(s.sd)}` : format(s.mean);

/**
 * The numbers behind the bars: per load level and server, the rounds' mean, spread, coefficient of
 * variation and the 95 % interval of the mean throughput, and how each compares with the fastest.
 */
function RoundsTable({ workload }: { workload: Workload }) {
  const noisy = workload.groups.some((g) => g.opsRps.cv !== null && g.opsRps.cv > NOISY_CV);
  const multi = workload.groups.some((g) => g.rounds > 1);
  // The operations in the workload's words: "requests/s" of an HTTP route, "calls/s" of MCP tool calls.
  const perSecond = `${operationWord(workload.scenario)}/s`;
  return (
    <div className="space-y-2">
      <div className="relative overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table className={table} data-testid="comparison-table">
          <thead>
            <tr>
              <th className={th}>Load</th>
              <th className={th}>Server</th>
              <th className={thNum}>Rounds</th>
              <th
                className={thNum}
                title={`${operationsName(workload.scenario)} per second: mean ± sample standard deviation`}
              >
                {capitalized(perSecond)}
              </th>
              <th
                className={thNum}
                title={`Coefficient of variation of the rounds' ${perSecond} (sd ÷ mean)`}
              >
                CV
              </th>
              <th className={thNum} title={`95 % confidence interval of the mean ${perSecond} (Student's t)`}>
                95 % CI
              </th>
              <th className={thNum} title={`Mean ${perSecond} ÷ the fastest server's at this load level`}>
                vs fastest
              </th>
              <th className={thNum}>p99 (ms)</th>
              <th className={thNum}>Peak MB</th>
              <th
                className={thNum}
                title={`${operationsName(workload.scenario)} per second per core of server CPU`}
              >
                {capitalized(operationWord(workload.scenario))}/CPU-s
              </th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {workload.levels.flatMap((level) => {
              const groups = groupsAtLevel(workload.groups, level);
              const versus = versusFastest(groups);
              const kind = versusKind(groups);
              return groups.map((g, i) => {
                const v = versus.get(g)!;
                const cvNoisy = g.opsRps.cv !== null && g.opsRps.cv > NOISY_CV;
                return (
                  <tr
                    key={`${levelKey(level)}:${g.serverName}`}
                    data-testid={`comparison-row-${g.serverName}-${levelTestId(level)}`}
                  >
                    <td className={`${td} text-zinc-500 dark:text-zinc-400`}>
                      {i === 0 ? levelHeading(level, workload.scenario) : ""}
                    </td>
                    <td className={`${td} font-medium`}>{g.serverName}</td>
                    <td className={tdNum}>{g.rounds}</td>
                    <td className={tdNum} data-testid="ops">
                      {withSd(g.opsRps, formatRate)}
                    </td>
                    <td
                      className={`${tdNum} ${cvNoisy ? "font-medium text-amber-700 dark:text-amber-400" : ""}`}
                      data-testid="cv"
                      data-noisy={cvNoisy || undefined}
                    >
                      {g.opsRps.cv === null ? "—" : formatPct(g.opsRps.cv * 100)}
                      {cvNoisy && <span className="sr-only"> (noisy)</span>}
                    </td>
                    <td className={tdNum} data-testid="ci">
                      {interval(g.opsRps, formatRate)}
                    </td>
                    <td
                      className={tdNum}
                      data-testid="versus"
                      data-separation={kind === "ranked" ? (v.separation ?? undefined) : undefined}
                    >
                      {kind === "only" ? (
                        "only result"
                      ) : kind === "open" ? (
                        <span title="Every server was offered the same rate: throughput does not rank them">
                          —
                        </span>
                      ) : v.fastest ? (
                        "fastest"
                      ) : (
                        <>
                          {formatRatio(v.ratio)} ×
                          {v.separation === "overlap" && (
                            <span
                              className="ml-1 text-zinc-500 dark:text-zinc-400"
                              title="The 95 % intervals of the two means overlap: these rounds show no clear difference (more rounds may)"
                            >
                              (intervals overlap)
                            </span>
                          )}
                        </>
                      )}
                    </td>
                    <td className={tdNum}>{withSd(g.p99Ms, msNumber)}</td>
                    <td className={tdNum}>
                      {withSd(
                        scale(g.rssPeakBytes, (b) => bytesToMb(b)!),
                        formatRate,
                      )}
                    </td>
                    <td className={tdNum}>{withSd(g.opsPerCpuSecond, formatRate)}</td>
                  </tr>
                );
              });
            })}
          </tbody>
        </table>
      </div>
      {!multi && (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          One round per server and level: no spread or interval. Queue several rounds (they interleave, so the
          machine&rsquo;s drift spreads across servers) to see which differences are more than noise.
        </p>
      )}
      {noisy && (
        <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-noisy">
          Rounds disagree by more than {NOISY_CV * 100} % (CV) where marked: add rounds or quiet the machine
          before trusting that ranking.
        </p>
      )}
    </div>
  );
}

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
