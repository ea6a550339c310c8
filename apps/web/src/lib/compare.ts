import { failedCallsPct } from "@perflab/contracts";
import { opsPerCpuSecond, type Spread, spreadOf } from "@perflab/metrics/stats";
import { type ComparisonLevel, levelKey, levelOf, levelOrder, runServers } from "./compare-axes";
import type { CellDto, CellStatus } from "./dto";
import type { CellNumbering } from "./labels";

export { type ComparisonLevel, levelKey, levelOf, levelOrder, runServers } from "./compare-axes";
export {
  type EnvironmentDifference,
  type EnvironmentVariant,
  environmentDifferences,
  k6VersionKey,
} from "./compare-environment";
export { type MergedCell, mergeRuns, nameTag, type RunToCompare, runTags } from "./compare-runs";

/**
 * One measure over the rounds of a server × load level: what the comparison charts draw (mean,
 * min–max) and its table prints (sd, CV, 95 % interval of the mean).
 */
export type Stat = Spread;

/** Timeouts in % of the operations (of the requests for a cell without any); null where not counted. */
const timeoutsPct = (s: { timeouts?: number | null; ops: number; requests: number }) => {
  const of = s.ops > 0 ? s.ops : s.requests;
  return s.timeouts == null || of === 0 ? null : (s.timeouts * 100) / of;
};

export type ComparisonGroup = ComparisonLevel & {
  serverName: string;
  /** Succeeded cells with a summary, one per round. */
  rounds: number;
  /** MCP tool calls per second (the summary table's "Ops/s"). */
  opsRps: Stat;
  /** p99 latency of the measured window, ms. */
  p99Ms: Stat | null;
  /** Peak server RSS, bytes. */
  rssPeakBytes: Stat | null;
  /**
   * Tool calls per second of server CPU (ops/s ÷ the server's mean CPU in cores): how much work a
   * server does for its CPU, comparable even where k6, not the server, set the throughput.
   */
  opsPerCpuSecond: Stat | null;
  /**
   * The share of calls that failed, in percent (`failedCallsPct`): ops/s counts every call that
   * ended, failed ones too, so a server that answers fast with errors must not read as fast.
   */
  failedCallsPct: Stat | null;
  /** HTTP requests per second per MB of mean server RSS (`rpsPerMb`). */
  rpsPerMb: Stat | null;
  /** Standard deviation of the measured window's latency, ms. */
  latencyStddevMs: Stat | null;
  /** The server runtime's longest single GC pause in the measured window, ms. */
  gcPauseMaxMs: Stat | null;
  /** Requests that hit the client's timeout, in % of the operations (as failedCallsPct). */
  timeoutsPct: Stat | null;
  /** Rounds whose load generator was saturated: their throughput is k6's ceiling, not the server's. */
  k6SaturatedRounds: number;
  /** Rounds measured while other work took a quarter of the machine or more (`CellDto.machineBusy`). */
  machineBusyRounds: number;
  /** Rounds whose server was still getting faster while they measured (`CellDto.warmingUp`). */
  warmingUpRounds: number;
  /** What its cells could not measure (a registered endpoint: CPU and RSS), so none is shown as zero. */
  unmeasured: ("cpu" | "rss")[];
};

/** Cells that measure the same thing: one scenario with the same parameters. */
export type Workload = {
  key: string;
  scenario: string;
  tool: string | null;
  params: Record<string, unknown>;
  servers: string[];
  /** Closed-model levels by VUs, then open-model levels by rate, then a level of neither. */
  levels: ComparisonLevel[];
  groups: ComparisonGroup[];
};

export type MissingCell = Pick<
  CellDto,
  "index" | "serverName" | "scenario" | "vus" | "rate" | "round" | "status" | "error"
> &
  CellNumbering;

export type Comparison = {
  /** Every server of the run, in the run's order: the order of the bars and legends. */
  servers: string[];
  workloads: Workload[];
  /** Failed or cancelled: no result to compare. */
  missing: MissingCell[];
  /** Queued, running, or succeeded with its summary not loaded yet: not in the charts yet. */
  pending: number;
};

const openStatuses: CellStatus[] = ["queued", "running"];

/** The rounds' spread: mean, sample sd, CV, 95 % interval, min and max; null when there is no value. */
export const stat = spreadOf;

/** Rounds whose ops/s disagree by more than this (sd ÷ mean) are flagged noisy. */
export const NOISY_CV = 0.1;

const toolOf = (cell: Pick<CellDto, "params">) => {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" ? tool : null;
};

export const workloadKey = (cell: Pick<CellDto, "scenario" | "params">) =>
  `${cell.scenario}\u0000${JSON.stringify(cell.params ?? {})}`;

/** A workload's groups at one load level, in server order. */
export function groupsAtLevel(groups: ComparisonGroup[], level: ComparisonLevel): ComparisonGroup[] {
  const key = levelKey(level);
  return groups.filter((g) => levelKey(g) === key);
}

/**
 * Groups a run's cells by workload × server × load level and aggregates the rounds. Only succeeded
 * cells with a summary count; `serverOrder` (the run's spec) fixes the order of the bars.
 */
export function compareCells(cells: (CellDto & CellNumbering)[], serverOrder: string[] = []): Comparison {
  const servers = runServers(cells, serverOrder);
  const missing: MissingCell[] = [];
  let pending = 0;
  const byWorkload = new Map<string, CellDto[]>();
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    // A cell the stream reports succeeded gets its summary with the page's next refresh.
    if (openStatuses.includes(cell.status) || (cell.status === "succeeded" && cell.summary === null)) {
      pending++;
      continue;
    }
    if (cell.status !== "succeeded" || cell.summary === null) {
      const { index, shownIndex, serverName, scenario, round, status, error } = cell;
      missing.push({ index, shownIndex, serverName, scenario, ...levelOf(cell), round, status, error });
      continue;
    }
    const key = workloadKey(cell);
    byWorkload.set(key, [...(byWorkload.get(key) ?? []), cell]);
  }

  const workloads: Workload[] = [...byWorkload].map(([key, done]) => {
    const levels = [...new Map(done.map((c) => [levelKey(c), levelOf(c)])).values()].sort(levelOrder);
    const groups: ComparisonGroup[] = [];
    for (const level of levels) {
      const key = levelKey(level);
      for (const serverName of servers) {
        const rounds = done.filter((c) => levelKey(c) === key && c.serverName === serverName);
        const opsRps = stat(rounds.map((c) => c.summary!.opsRps));
        if (!opsRps) continue;
        groups.push({
          serverName,
          ...level,
          rounds: rounds.length,
          opsRps,
          p99Ms: stat(rounds.map((c) => c.summary!.latency.p99)),
          rssPeakBytes: stat(rounds.map((c) => c.summary!.rssPeakBytes)),
          opsPerCpuSecond: stat(rounds.map((c) => opsPerCpuSecond(c.summary!))),
          failedCallsPct: stat(rounds.map((c) => failedCallsPct(c.summary!))),
          // Reports frozen before these figures existed have none.
          rpsPerMb: stat(rounds.map((c) => c.summary!.rpsPerMb ?? null)),
          latencyStddevMs: stat(rounds.map((c) => c.summary!.latencyStddevMs ?? null)),
          gcPauseMaxMs: stat(rounds.map((c) => c.summary!.gcPauseMaxMs ?? null)),
          timeoutsPct: stat(rounds.map((c) => timeoutsPct(c.summary!))),
          k6SaturatedRounds: rounds.filter((c) => c.k6Saturated).length,
          // A report frozen before the flag existed has none.
          machineBusyRounds: rounds.filter((c) => c.machineBusy === true).length,
          warmingUpRounds: rounds.filter((c) => c.warmingUp === true).length,
          unmeasured: [...new Set(rounds.flatMap((c) => c.unmeasured ?? []))],
        });
      }
    }
    const first = done[0]!;
    return {
      key,
      scenario: first.scenario,
      tool: toolOf(first),
      params: first.params ?? {},
      servers: servers.filter((s) => groups.some((g) => g.serverName === s)),
      levels,
      groups,
    };
  });
  return { servers, workloads, missing, pending };
}

/**
 * The comparison is worth showing when the run spans more than one server or load level (of either
 * model: 50 VUs and 50 calls/s are two levels).
 */
export function isComparable(
  cells: (Pick<CellDto, "serverName" | "vus"> & { rate?: number | null })[],
): boolean {
  return new Set(cells.map((c) => c.serverName)).size > 1 || new Set(cells.map((c) => levelKey(c))).size > 1;
}

/** Where a server × load level stands against the fastest server at that level. */
export type VersusFastest = {
  /** This group's mean ops/s ÷ the fastest group's (1 for the fastest itself). */
  ratio: number;
  fastest: boolean;
  /**
   * "apart" when the 95 % intervals of the two means do not overlap (a conservative test: the
   * difference is clear), "overlap" when they do (these rounds show no clear difference; more
   * rounds may), null with a single round on either side.
   */
  separation: "apart" | "overlap" | null;
};

/** Each group of one load level against the fastest (highest mean ops/s) of that level. */
export function versusFastest(groups: ComparisonGroup[]): Map<ComparisonGroup, VersusFastest> {
  const result = new Map<ComparisonGroup, VersusFastest>();
  const best = groups.reduce<ComparisonGroup | null>(
    (b, g) => (b === null || g.opsRps.mean > b.opsRps.mean ? g : b),
    null,
  );
  if (!best) return result;
  for (const g of groups) {
    const fastest = g === best;
    const a = g.opsRps.ci95;
    const b = best.opsRps.ci95;
    result.set(g, {
      ratio: best.opsRps.mean > 0 ? g.opsRps.mean / best.opsRps.mean : 1,
      fastest,
      separation: fastest || !a || !b ? null : a[1] < b[0] || b[1] < a[0] ? "apart" : "overlap",
    });
  }
  return result;
}

/**
 * What a level's "vs fastest" column can say: a ranking; "only" with a single server, nothing to
 * compare with; "open" at an open-model level, where every server was offered the same rate, so
 * one that kept up is not faster than another that kept up.
 */
export function versusKind(groups: ComparisonGroup[]): "ranked" | "only" | "open" {
  if (groups.length <= 1) return "only";
  return groups.some((g) => g.rate !== null) ? "open" : "ranked";
}
