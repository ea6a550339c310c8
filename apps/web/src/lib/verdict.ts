import { failedCallsPct } from "@perflab/contracts";
import { spreadOf } from "@perflab/metrics/stats";
import {
  type ComparisonGroup,
  type ComparisonLevel,
  compareCells,
  levelKey,
  levelOf,
  type Stat,
  workloadKey,
} from "./compare";
import type { CellDto } from "./dto";

/** What a verdict checks per server, workload and load level, and which way is better. */
export const verdictMetrics = {
  opsRps: { label: "ops/s", better: "higher" },
  p99Ms: { label: "p99", better: "lower" },
  rssPeakBytes: { label: "peak RSS", better: "lower" },
  /** Failed requests per 100 (HTTP failures and MCP errors): a faster server that fails is no faster. */
  errorPct: { label: "errors", better: "lower" },
} as const;

/**
 * Error rates are judged by how many more requests in a hundred fail, not by a relative change
 * (0.01 % → 0.02 % doubles and means nothing; 0 % → 5 % is infinite and means everything).
 */
export const ERROR_TOLERANCE_POINTS = 1;
export type VerdictMetric = keyof typeof verdictMetrics;

/**
 * regressed / improved: worse / better by more than the tolerance, and the rounds tell the two
 * apart (their 95 % intervals do not overlap, or a side has one round and no interval to judge by);
 * unchanged: within the tolerance; unclear: beyond the tolerance but the intervals overlap, or the
 * load generator, not the server, set the throughput.
 */
export type CheckOutcome = "regressed" | "improved" | "unchanged" | "unclear";

export type VerdictCheck = ComparisonLevel & {
  scenario: string;
  params: Record<string, unknown>;
  server: string;
  metric: VerdictMetric;
  baseline: Stat;
  candidate: Stat;
  /**
   * (candidate − baseline) ÷ baseline of the means, in percent; for errorPct the difference in
   * percentage points. Positive is more, not better.
   */
  changePct: number;
  separation: "apart" | "overlap" | null;
  outcome: CheckOutcome;
  /** Why a check is unclear, or judged on a single round. */
  note: string | null;
};

/** A server × workload × level measured in only one of the two runs. */
export type Unmatched = ComparisonLevel & {
  scenario: string;
  params: Record<string, unknown>;
  server: string;
  in: "baseline" | "candidate";
};

/**
 * Candidate cells that ended without a result (failed: a crash, an OOM kill, a server that never
 * became healthy) where the baseline has one: the regression that matters most.
 */
export type FailedInCandidate = ComparisonLevel & {
  scenario: string;
  params: Record<string, unknown>;
  server: string;
  cells: number;
  error: string | null;
};

/** A check a verdict could not make: a registered endpoint's memory is not measured. */
export type NotMeasured = ComparisonLevel & {
  scenario: string;
  params: Record<string, unknown>;
  server: string;
  metric: VerdictMetric;
};

export type Verdict = {
  /**
   * fail: some check regressed, or a cell that had a result in the baseline failed; pass: neither;
   * inconclusive: nothing of the two runs matched.
   */
  outcome: "pass" | "fail" | "inconclusive";
  tolerancePct: number;
  checks: VerdictCheck[];
  failed: FailedInCandidate[];
  unmatched: Unmatched[];
  notMeasured: NotMeasured[];
};

/** Changes within this many percent are not called a regression unless a caller asks for less. */
export const DEFAULT_TOLERANCE_PCT = 10;

/**
 * Rounding error in a computed change, in percent or points: a change of exactly the tolerance
 * (100 → 93 at 7 %, 6 % → 7 % of requests failed) may compute a hair beyond it, and is within it.
 */
const ROUNDING_SLACK = 1e-9;

type Keyed = { workload: { scenario: string; params: Record<string, unknown> }; group: ComparisonGroup };

const keyOf = (cell: CellDto) =>
  `${workloadKey(cell)}\u0000${cell.serverName}\u0000${levelKey(levelOf(cell))}`;

/**
 * Per server × workload × level, the rounds' share of failed calls, in percent: per operation, so a
 * tolerance of 1 point means the same whether each call opens a session (four requests) or not.
 */
function errorRates(cells: CellDto[]): Map<string, Stat> {
  const byKey = new Map<string, number[]>();
  for (const cell of cells) {
    const pct = cell.summary ? failedCallsPct(cell.summary) : null;
    if (cell.status !== "succeeded" || pct === null) continue;
    byKey.set(keyOf(cell), [...(byKey.get(keyOf(cell)) ?? []), pct]);
  }
  return new Map([...byKey].map(([key, values]) => [key, spreadOf(values)!]));
}

function keyedGroups(cells: CellDto[]): Map<string, Keyed> {
  const result = new Map<string, Keyed>();
  for (const workload of compareCells(cells).workloads) {
    for (const group of workload.groups) {
      const key = `${workload.key}\u0000${group.serverName}\u0000${levelKey(group)}`;
      result.set(key, { workload: { scenario: workload.scenario, params: workload.params }, group });
    }
  }
  return result;
}

function separation(a: Stat, b: Stat): "apart" | "overlap" | null {
  if (!a.ci95 || !b.ci95) return null;
  return a.ci95[1] < b.ci95[0] || b.ci95[1] < a.ci95[0] ? "apart" : "overlap";
}

function judge(
  metric: VerdictMetric,
  baseline: Stat,
  candidate: Stat,
  tolerancePct: number,
  k6Saturated: boolean,
  machineBusy = false,
): Pick<VerdictCheck, "changePct" | "separation" | "outcome" | "note"> {
  const points = metric === "errorPct";
  const sep = separation(baseline, candidate);
  if (!points && baseline.mean === 0) {
    // Nothing to take a share of (no operations counted: a scenario whose operations were not tagged).
    return {
      changePct: 0,
      separation: sep,
      outcome: candidate.mean === 0 ? "unchanged" : "unclear",
      note: candidate.mean === 0 ? null : "the baseline's value is 0: no relative change to judge",
    };
  }
  const changePct = points
    ? candidate.mean - baseline.mean
    : ((candidate.mean - baseline.mean) * 100) / Math.abs(baseline.mean);
  const worse = verdictMetrics[metric].better === "higher" ? changePct < 0 : changePct > 0;
  const singleRound = baseline.n < 2 || candidate.n < 2;
  if (Math.abs(changePct) <= (points ? ERROR_TOLERANCE_POINTS : tolerancePct) + ROUNDING_SLACK) {
    return { changePct, separation: sep, outcome: "unchanged", note: null };
  }
  // CPU contention moves throughput and latency; memory and errors are judged as measured.
  if ((metric === "opsRps" || metric === "p99Ms") && machineBusy) {
    return {
      changePct,
      separation: sep,
      outcome: "unclear",
      note: "the machine was busy with other work in some rounds: the change may be its doing",
    };
  }
  if (metric === "opsRps" && k6Saturated) {
    return {
      changePct,
      separation: sep,
      outcome: "unclear",
      note: "k6 was saturated in some rounds: the throughput is the load generator's",
    };
  }
  if (sep === "overlap") {
    return {
      changePct,
      separation: sep,
      outcome: "unclear",
      note: "the rounds' 95 % intervals overlap: no clear difference (more rounds may tell)",
    };
  }
  return {
    changePct,
    separation: sep,
    outcome: worse ? "regressed" : "improved",
    note: singleRound ? "a single round on one side: judged by the tolerance alone" : null,
  };
}

/**
 * A candidate run judged against a baseline: every server × workload × load level measured in
 * both, on throughput, p99 and peak memory. Only cells with a result count; percentiles come from
 * each round's merged histogram and the rounds are compared by their means and 95 % intervals.
 */
export function judgeRuns(
  baselineCells: CellDto[],
  candidateCells: CellDto[],
  tolerancePct: number = DEFAULT_TOLERANCE_PCT,
): Verdict {
  const base = keyedGroups(baselineCells);
  const cand = keyedGroups(candidateCells);
  const baseErrors = errorRates(baselineCells);
  const candErrors = errorRates(candidateCells);
  const checks: VerdictCheck[] = [];
  const unmatched: Unmatched[] = [];
  const notMeasured: NotMeasured[] = [];
  const describe = ({ workload, group }: Keyed) => ({
    scenario: workload.scenario,
    params: workload.params,
    server: group.serverName,
    vus: group.vus,
    rate: group.rate,
  });
  for (const [key, b] of base) {
    const c = cand.get(key);
    if (!c) {
      unmatched.push({ ...describe(b), in: "baseline" });
      continue;
    }
    const saturated = b.group.k6SaturatedRounds > 0 || c.group.k6SaturatedRounds > 0;
    const busy = b.group.machineBusyRounds > 0 || c.group.machineBusyRounds > 0;
    for (const metric of Object.keys(verdictMetrics) as VerdictMetric[]) {
      const baseline = metric === "errorPct" ? (baseErrors.get(key) ?? null) : b.group[metric];
      const candidate = metric === "errorPct" ? (candErrors.get(key) ?? null) : c.group[metric];
      if (metric === "rssPeakBytes" && [...b.group.unmeasured, ...c.group.unmeasured].includes("rss")) {
        notMeasured.push({ ...describe(c), metric });
        continue;
      }
      if (!baseline || !candidate) continue;
      checks.push({
        ...describe(c),
        metric,
        baseline,
        candidate,
        ...judge(metric, baseline, candidate, tolerancePct, saturated, busy),
      });
    }
  }
  for (const [key, c] of cand) if (!base.has(key)) unmatched.push({ ...describe(c), in: "candidate" });
  // Failed cells of the candidate where the baseline has a result (cancelled ones were stopped by
  // someone, not by the server: they only go unmatched).
  const failedByKey = new Map<string, FailedInCandidate>();
  for (const cell of candidateCells) {
    const key = keyOf(cell);
    const b = base.get(key);
    if (cell.status !== "failed" || !b) continue;
    const entry = failedByKey.get(key) ?? { ...describe(b), cells: 0, error: cell.error };
    entry.cells += 1;
    failedByKey.set(key, entry);
  }
  const failed = [...failedByKey.values()];
  const regressed = failed.length > 0 || checks.some((c) => c.outcome === "regressed");
  const outcome = regressed ? "fail" : checks.length === 0 ? "inconclusive" : "pass";
  return { outcome, tolerancePct, checks, failed, unmatched, notMeasured };
}
