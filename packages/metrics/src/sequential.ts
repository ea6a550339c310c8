import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/**
 * When to stop adding rounds to a comparison. A fixed count is too few when servers are close and
 * too many when they are far apart; re-checking a 95 % interval after every round and stopping at the
 * first that parts would be wrong far more often than 5 % of the time. So every look at every pair
 * spends an equal share of the error budget (Bonferroni over the planned looks × the pairs compared):
 * however many times the rule is consulted, the chance that any stop it calls is wrong stays under
 * 1 − confidence.
 */
export type RoundsRule = {
  /** Rounds before the first look (at least 2: one round has no spread). */
  minRounds: number;
  maxRounds: number;
  /** The run's whole wall-clock budget, in minutes; absent for none. */
  maxMinutes?: number;
  confidence: number;
  /** Two servers within this many percent of each other, surely, are called equivalent. */
  equivalencePct: number;
};

export const DEFAULT_ROUNDS_RULE = { minRounds: 3, confidence: 0.95, equivalencePct: 3 } as const;

/** One pair of servers at one workload and level, faster (by mean) first. */
export type PairVerdict = {
  faster: string;
  slower: string;
  /** The interval of the slower's ops/s as a share of the faster's, in percent below it: [lo, hi]. */
  gapPct: [number, number] | null;
  verdict: "separated" | "equivalent" | "undecided";
};

export type StopReason = "separated" | "no-difference" | "decided" | "max-rounds" | "max-time";
export type RoundsDecision = { stop: boolean; reason: StopReason | null; pairs: PairVerdict[] };

/** Per-round ops/s of each server of one workload and level; round r of every server ran together. */
export type RoundsGroup = { key: string; servers: { server: string; rounds: (number | null)[] }[] };

const looksOf = (rule: RoundsRule) => Math.max(1, rule.maxRounds - rule.minRounds + 1);

/**
 * The interval of mean(log(slower / faster)) over the rounds both ran, paired by round: interleaved
 * rounds share the machine's drift, which pairing takes out. Null with fewer than two such rounds.
 */
function pairedGap(
  faster: (number | null)[],
  slower: (number | null)[],
  alpha: number,
): [number, number] | null {
  const diffs: number[] = [];
  for (let r = 0; r < Math.min(faster.length, slower.length); r++) {
    const a = faster[r];
    const b = slower[r];
    if (a != null && b != null && a > 0 && b > 0) diffs.push(Math.log(b / a));
  }
  const n = diffs.length;
  if (n < 2) return null;
  const mean = diffs.reduce((s, d) => s + d, 0) / n;
  const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1));
  const half = tQuantile(1 - alpha / 2, n - 1) * (sd / Math.sqrt(n));
  // As percent below the faster server: 0 is a tie, 30 is 30 % fewer ops/s.
  return [(1 - Math.exp(mean + half)) * 100, (1 - Math.exp(mean - half)) * 100];
}

const meanOf = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x != null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : Number.NEGATIVE_INFINITY;
};

/** Neighbours in the ranking by mean ops/s: what a ranking needs settled. */
export function judgePairs(group: RoundsGroup, rule: RoundsRule, pairsInFamily: number): PairVerdict[] {
  const ranked = [...group.servers].sort((a, b) => meanOf(b.rounds) - meanOf(a.rounds));
  const alpha = (1 - rule.confidence) / (looksOf(rule) * Math.max(1, pairsInFamily));
  return ranked.slice(1).map((slower, i) => {
    const faster = ranked[i]!;
    const gapPct = pairedGap(faster.rounds, slower.rounds, alpha);
    const verdict =
      gapPct === null
        ? "undecided"
        : gapPct[0] > 0
          ? "separated"
          : gapPct[0] >= -rule.equivalencePct && gapPct[1] <= rule.equivalencePct
            ? "equivalent"
            : "undecided";
    return { faster: faster.server, slower: slower.server, gapPct, verdict };
  });
}

/**
 * After `roundsDone` rounds (and `elapsedMinutes` of the run), whether another round is needed. It
 * stops when every neighbouring pair of every group is settled (separated, or surely within the
 * equivalence margin), or when the next round would pass the rule's rounds or time budget.
 */
export function decideRounds(input: {
  groups: RoundsGroup[];
  rule: RoundsRule;
  roundsDone: number;
  elapsedMinutes: number;
  /** Minutes one more round takes, as estimated: a round that would end past the budget is not begun. */
  roundMinutes: number;
}): RoundsDecision {
  const { groups, rule, roundsDone } = input;
  const family = groups.reduce((n, g) => n + Math.max(0, g.servers.length - 1), 0);
  const pairs = roundsDone >= rule.minRounds ? groups.flatMap((g) => judgePairs(g, rule, family)) : [];
  const settled = roundsDone >= rule.minRounds && pairs.every((p) => p.verdict !== "undecided");
  if (settled) {
    const all = (v: PairVerdict["verdict"]) => pairs.every((p) => p.verdict === v);
    return {
      stop: true,
      reason: all("separated") ? "separated" : all("equivalent") ? "no-difference" : "decided",
      pairs,
    };
  }
  if (roundsDone >= rule.maxRounds) return { stop: true, reason: "max-rounds", pairs };
  if (rule.maxMinutes !== undefined && input.elapsedMinutes + input.roundMinutes > rule.maxMinutes) {
    return { stop: true, reason: "max-time", pairs };
  }
  return { stop: false, reason: null, pairs };
}
