import {
  addBuckets,
  createLatencyHistogram,
  decodeBuckets,
  encodeHistogram,
  type Histogram,
  latencyStats,
} from "./histogram.ts";
import { maxOf as max, meanOf as mean } from "./stats.ts";

/**
 * Bucket sizes a long cell's seconds are merged into when it ends. A chart of at most N points per
 * cell reads the finest level that fits: every second up to N seconds, 5 s buckets up to 5·N, 30 s
 * up to 30·N, 60 s up to 60·N, 5 min beyond (the run page's 2,000 points: a 24-hour cell in 1,440
 * minutes; a report's 600: a 24-hour cell in 288 five-minute buckets). Each level divides the next,
 * so each is merged from the finer one's buckets.
 */
export const ROLLUP_LEVELS = [5, 30, 60, 300] as const;

/** One stored second, as the rollups need it. */
export type RollupSecond = {
  second: number;
  t: Date;
  phase: "warmup" | "measure";
  requests: number;
  errors: number;
  ops: number;
  rps: number;
  latencyP50Ms: number | null;
  latencyP90Ms: number | null;
  latencyP95Ms: number | null;
  latencyP99Ms: number | null;
  latencyMaxMs: number | null;
  latencyMeanMs: number | null;
  cpuPct: number | null;
  rssBytes: bigint | null;
  k6CpuPct: number | null;
  histogram: string | null;
};

export type Rollup = Omit<RollupSecond, "second"> & {
  bucketSeconds: number;
  /** The bucket's first second (a multiple of bucketSeconds). */
  second: number;
  /** Seconds with a point in the bucket. */
  seconds: number;
};

/** The finest rollup level whose buckets keep `count` seconds within `limit` points; null: none does. */
export function rollupLevelFor(count: number, limit: number): number | null {
  return ROLLUP_LEVELS.find((size) => Math.ceil(count / size) <= limit) ?? null;
}

const maxBig = (values: (bigint | null)[]) =>
  values.reduce<bigint | null>((m, v) => (v === null ? m : m === null || v > m ? v : m), null);

type Bucket = { seconds: RollupSecond[]; histogram: Histogram | null; complete: boolean };

/**
 * Merges seconds (ordered or not) into buckets of each size in `levels`. Counts add up; rates and
 * CPU are the mean of the seconds; memory is the peak; latency percentiles come from the merged
 * histogram of the bucket's seconds. A bucket in which a second with requests has no histogram (an
 * upload without them) keeps the worst second's percentiles instead, and no histogram. Each second's
 * histogram is decoded once, into the finest level; a level whose size a finer level's divides is
 * merged from that level's buckets (the same counts: 30 s from six 5 s buckets, not 30 seconds).
 */
export function rollUpSeconds(seconds: RollupSecond[], levels: readonly number[] = ROLLUP_LEVELS): Rollup[] {
  const buckets = new Map<number, Map<number, Bucket>>(levels.map((size) => [size, new Map()]));
  const bucketOf = (size: number, second: number) => {
    const start = Math.floor(second / size) * size;
    const byStart = buckets.get(size)!;
    let bucket = byStart.get(start);
    if (!bucket) {
      bucket = { seconds: [], histogram: null, complete: true };
      byStart.set(start, bucket);
    }
    return bucket;
  };
  const merge = (into: Bucket, histogram: Histogram) => {
    into.histogram ??= createLatencyHistogram();
    into.histogram.add(histogram);
  };
  const sizes = [...new Set(levels)].sort((a, b) => a - b);
  const fromSeconds = sizes.filter((size, i) => !sizes.slice(0, i).some((finer) => size % finer === 0));
  for (const s of seconds) {
    const decoded = s.histogram ? decodeBuckets(s.histogram) : null;
    for (const size of fromSeconds) {
      const bucket = bucketOf(size, s.second);
      bucket.seconds.push(s);
      if (decoded) {
        bucket.histogram ??= createLatencyHistogram();
        addBuckets(bucket.histogram, decoded);
      } else if (s.requests > 0) bucket.complete = false;
    }
  }
  for (const [i, size] of sizes.entries()) {
    if (fromSeconds.includes(size)) continue;
    const finer = sizes.slice(0, i).findLast((f) => size % f === 0)!;
    for (const part of buckets.get(finer)!.values()) {
      const bucket = bucketOf(size, part.seconds[0]!.second);
      bucket.seconds.push(...part.seconds);
      if (part.histogram) merge(bucket, part.histogram);
      bucket.complete &&= part.complete;
    }
  }
  const out: Rollup[] = [];
  for (const size of levels) {
    for (const [start, bucket] of [...buckets.get(size)!].sort(([a], [b]) => a - b)) {
      const group = [...bucket.seconds].sort((a, b) => a.second - b.second);
      const pick = <K extends keyof RollupSecond>(key: K) => group.map((p) => p[key] as number | null);
      const merged = bucket.complete && bucket.histogram ? latencyStats(bucket.histogram) : null;
      out.push({
        bucketSeconds: size,
        second: start,
        t: group[0]!.t,
        phase: group.some((p) => p.phase === "warmup") ? "warmup" : "measure",
        seconds: group.length,
        requests: group.reduce((a, p) => a + p.requests, 0),
        errors: group.reduce((a, p) => a + p.errors, 0),
        ops: group.reduce((a, p) => a + p.ops, 0),
        rps: mean(pick("rps")) ?? 0,
        latencyP50Ms: merged ? merged.p50 : max(pick("latencyP50Ms")),
        latencyP90Ms: merged ? merged.p90 : max(pick("latencyP90Ms")),
        latencyP95Ms: merged ? merged.p95 : max(pick("latencyP95Ms")),
        latencyP99Ms: merged ? merged.p99 : max(pick("latencyP99Ms")),
        latencyMaxMs: merged ? merged.maxMs : max(pick("latencyMaxMs")),
        latencyMeanMs: merged ? merged.avgMs : mean(pick("latencyMeanMs")),
        cpuPct: mean(pick("cpuPct")),
        rssBytes: maxBig(group.map((p) => p.rssBytes)),
        k6CpuPct: mean(pick("k6CpuPct")),
        histogram: merged && bucket.histogram ? encodeHistogram(bucket.histogram) : null,
      });
    }
  }
  return out;
}
