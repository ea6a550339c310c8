import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/**
 * Mean and maximum of a series with gaps (a second without a reading is null), shared by the
 * stored rollups and the charts' in-browser downsampling, and the statistics of rounds. The web
 * bundle imports this module: keep its dependencies small.
 */
export function meanOf(values: readonly (number | null)[]): number | null {
  let sum = 0;
  let count = 0;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    count++;
  }
  return count ? sum / count : null;
}

/** The largest present value (a loop, not Math.max(...values): a day of seconds overflows the stack). */
export function maxOf(values: readonly (number | null)[]): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && (best === null || v > best)) best = v;
  return best;
}

/**
 * Calls per second per core of server CPU (ops/s ÷ CPU % / 100): throughput comparable even where
 * k6, not the server, set the ceiling. Null without a CPU reading (an upload without one, an idle server).
 */
export function opsPerCpuSecond(summary: { opsRps: number; cpuAvgPct: number | null }): number | null {
  const cpu = summary.cpuAvgPct;
  return cpu !== null && cpu > 0 ? summary.opsRps / (cpu / 100) : null;
}

/** What repeated measurements of one thing (the rounds of a cell) say together. */
export type Spread = {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  sd: number;
  /** Coefficient of variation, sd ÷ |mean|: the rounds' noise as a fraction; null for one value or a zero mean. */
  cv: number | null;
  /** 95 % confidence interval of the mean from Student's t distribution; null for a single value. */
  ci95: [number, number] | null;
  min: number;
  max: number;
};

/** The two-sided 95 % quantile of Student's t with `df` degrees of freedom (12.71 for 1, → 1.96). */
export function t95(df: number): number {
  return tQuantile(0.975, df);
}

/** Mean, spread and 95 % interval of finite values (others are skipped); null when none is left. */
export function spreadOf(values: readonly (number | null | undefined)[]): Spread | null {
  const xs = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const n = xs.length;
  if (n === 0) return null;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const x of xs) {
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const mean = sum / n;
  if (n === 1) return { n, mean, sd: 0, cv: null, ci95: null, min, max };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const half = t95(n - 1) * (sd / Math.sqrt(n));
  return {
    n,
    mean,
    sd,
    cv: mean !== 0 ? sd / Math.abs(mean) : null,
    ci95: [mean - half, mean + half],
    min,
    max,
  };
}
