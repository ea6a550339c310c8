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

/** The standard normal's 0.975 quantile. */
const Z975 = 1.959963984540054;

/** Student's t 0.975 quantiles for 1–30 degrees of freedom, to nine decimals (any statistics library). */
const T975 = [
  12.706204736, 4.30265273, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252, 2.306004135,
  2.262157163, 2.228138852, 2.20098516, 2.17881283, 2.160368656, 2.144786688, 2.131449546, 2.119905299,
  2.109815578, 2.10092204, 2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.06865761, 2.063898562,
  2.059538553, 2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
];

/**
 * The two-sided 95 % quantile of Student's t with `df` degrees of freedom (12.71 for 1, → 1.96):
 * tabled up to 30, the Cornish–Fisher expansion in 1/df beyond (Abramowitz & Stegun 26.7.5, within
 * 1e-5 there; the unit test holds both to stdlib's exact quantile). Not a library call: a full
 * quantile function weighs ~50 kB gzipped in the browser bundle, where the comparison computes its
 * intervals.
 */
export function t95(df: number): number {
  if (!(df >= 1)) throw new RangeError(`degrees of freedom must be at least 1, not ${df}`);
  const tabled = T975[Math.round(df) - 1];
  if (tabled !== undefined && Number.isInteger(df)) return tabled;
  const z = Z975;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
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
