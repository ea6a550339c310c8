import { type ComparisonGroup, type ComparisonLevel, compareCells, levelKey, type Stat } from "./compare";
import type { CellDto } from "./dto";

/** What a verdict checks per server, workload and load level, and which way is better. */
export const verdictMetrics = {
  opsRps: { label: "ops/s", better: "higher" },
  p99Ms: { label: "p99", better: "lower" },
  rssPeakBytes: { label: "peak RSS", better: "lower" },
} as const;
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
  /** (candidate − baseline) ÷ baseline of the means, in percent; positive is more, not better. */
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

export type Verdict = {
  /** fail: some check regressed; pass: none did; inconclusive: nothing of the two runs matched. */
  outcome: "pass" | "fail" | "inconclusive";
  tolerancePct: number;
  checks: VerdictCheck[];
  unmatched: Unmatched[];
};

/** Changes within this many percent are not called a regression unless a caller asks for less. */
export const DEFAULT_TOLERANCE_PCT = 10;

type Keyed = { workload: { scenario: string; params: Record<string, unknown> }; group: ComparisonGroup };

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
): Pick<VerdictCheck, "changePct" | "separation" | "outcome" | "note"> {
  const changePct =
    baseline.mean === 0 ? 0 : ((candidate.mean - baseline.mean) / Math.abs(baseline.mean)) * 100;
  const sep = separation(baseline, candidate);
  const worse = verdictMetrics[metric].better === "higher" ? changePct < 0 : changePct > 0;
  const singleRound = baseline.n < 2 || candidate.n < 2;
  if (Math.abs(changePct) <= tolerancePct) {
    return { changePct, separation: sep, outcome: "unchanged", note: null };
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
  const checks: VerdictCheck[] = [];
  const unmatched: Unmatched[] = [];
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
    for (const metric of Object.keys(verdictMetrics) as VerdictMetric[]) {
      const baseline = b.group[metric];
      const candidate = c.group[metric];
      if (!baseline || !candidate) continue;
      checks.push({
        ...describe(c),
        metric,
        baseline,
        candidate,
        ...judge(metric, baseline, candidate, tolerancePct, saturated),
      });
    }
  }
  for (const [key, c] of cand) if (!base.has(key)) unmatched.push({ ...describe(c), in: "candidate" });
  const outcome =
    checks.length === 0 ? "inconclusive" : checks.some((c) => c.outcome === "regressed") ? "fail" : "pass";
  return { outcome, tolerancePct, checks, unmatched };
}
