import { describe, expect, it } from "vitest";
import { createLatencyHistogram, decodeHistogram, encodeHistogram, latencyStats } from "./histogram.ts";
import { type RollupSecond, rollUpSeconds, rollupLevelFor } from "./rollups.ts";

/** A deterministic, skewed latency sample in µs: most fast, a tail two orders of magnitude slower. */
function samples(second: number, n: number): number[] {
  let x = (second + 1) * 2_654_435_761;
  return Array.from({ length: n }, () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    const u = x / 2_147_483_648;
    return Math.round(500 + u ** 8 * 200_000);
  });
}

function second(s: number, overrides: Partial<RollupSecond> = {}, values = samples(s, 200)): RollupSecond {
  const h = createLatencyHistogram();
  for (const v of values) h.recordValue(v);
  const stats = latencyStats(h);
  return {
    second: s,
    t: new Date(1_700_000_000_000 + s * 1000),
    phase: "measure",
    requests: values.length,
    errors: s % 3 === 0 ? 1 : 0,
    ops: values.length / 2,
    rps: values.length,
    latencyP50Ms: stats.p50,
    latencyP90Ms: stats.p90,
    latencyP95Ms: stats.p95,
    latencyP99Ms: stats.p99,
    latencyMaxMs: stats.maxMs,
    latencyMeanMs: stats.avgMs,
    cpuPct: 10 + s,
    rssBytes: BigInt(1000 + ((s * 37) % 11)),
    k6CpuPct: 50,
    histogram: encodeHistogram(h),
    ...overrides,
  };
}

describe("rollUpSeconds", () => {
  it("takes a bucket's percentiles from its merged histogram: those of all its samples, not the worst second's", () => {
    const seconds = Array.from({ length: 12 }, (_, s) => second(s));
    const [first] = rollUpSeconds(seconds, [5]);
    const all = createLatencyHistogram();
    for (let s = 0; s < 5; s++) for (const v of samples(s, 200)) all.recordValue(v);
    const expected = latencyStats(all);
    expect(first).toMatchObject({
      second: 0,
      seconds: 5,
      latencyP50Ms: expected.p50,
      latencyP90Ms: expected.p90,
      latencyP95Ms: expected.p95,
      latencyP99Ms: expected.p99,
    });
    // The encoded seconds keep their maximum to HDR precision (3 significant digits), the mean too.
    expect(Math.abs(first!.latencyMaxMs! - expected.maxMs!) / expected.maxMs!).toBeLessThan(1e-3);
    expect(Math.abs(first!.latencyMeanMs! - expected.avgMs!) / expected.avgMs!).toBeLessThan(1e-3);
    // The worst second's p99 is not the bucket's: the point of merging.
    const worst = Math.max(...seconds.slice(0, 5).map((s) => s.latencyP99Ms!));
    expect(first!.latencyP99Ms).not.toBe(worst);
    expect(decodeHistogram(first!.histogram!).totalCount).toBe(1000);
  });

  it("aligns buckets to multiples of their size, adds counts, averages rates and CPU, keeps peak memory", () => {
    const seconds = Array.from({ length: 12 }, (_, s) => second(s)).reverse();
    const rollups = rollUpSeconds(seconds, [5, 30]);
    expect(rollups.map((r) => `${r.bucketSeconds}:${r.second}:${r.seconds}`)).toEqual([
      "5:0:5",
      "5:5:5",
      "5:10:2",
      "30:0:12",
    ]);
    const [r] = rollups;
    expect(r).toMatchObject({ requests: 1000, ops: 500, errors: 2, rps: 200, cpuPct: 12, k6CpuPct: 50 });
    expect(r!.rssBytes).toBe(1008n); // seconds 0–4: 1000 + (0, 4, 8, 1, 5)
    expect(r!.t).toEqual(new Date(1_700_000_000_000));
  });

  it("marks a bucket touching the warm-up as warm-up", () => {
    const rollups = rollUpSeconds([second(3, { phase: "warmup" }), second(4), second(5)], [5]);
    expect(rollups.map((r) => r.phase)).toEqual(["warmup", "measure"]);
  });

  it("keeps the worst second's percentiles, and no histogram, when a second with requests has none", () => {
    const rollups = rollUpSeconds([second(0), second(1, { histogram: null, latencyP99Ms: 999 })], [5]);
    expect(rollups[0]).toMatchObject({ latencyP99Ms: 999, histogram: null, requests: 400 });
  });

  it("ignores a missing histogram on a second without requests", () => {
    const quiet = second(1, { histogram: null, requests: 0 }, []);
    const [r] = rollUpSeconds([second(0), quiet], [5]);
    expect(r!.histogram).not.toBeNull();
    expect(r!.latencyP99Ms).toBe(second(0).latencyP99Ms);
  });

  // Decodes and merges ~1,400 histograms: about a second alone, past vitest's 5 s on a loaded 2-core machine.
  it("gives every level the same rollups when coarser levels are merged from finer buckets as from the seconds", {
    timeout: 60_000,
  }, () => {
    // Unordered, a gap, the warm-up, and a second with requests but no histogram (in 60–89 s).
    const seconds = Array.from({ length: 200 }, (_, s) =>
      second(s, {
        ...(s < 7 ? { phase: "warmup" as const } : {}),
        ...(s === 71 ? { histogram: null } : {}),
      }),
    )
      .filter((s) => s.second < 120 || s.second > 133)
      .reverse();
    const together = rollUpSeconds(seconds, [60, 5, 30, 300, 15, 7]);
    const alone = [5, 7, 15, 30, 60, 300].flatMap((size) => rollUpSeconds(seconds, [size]));
    const key = (r: { bucketSeconds: number; second: number }) => r.bucketSeconds * 1e6 + r.second;
    expect(together.toSorted((a, b) => key(a) - key(b))).toEqual(alone.toSorted((a, b) => key(a) - key(b)));
    expect(together.filter((r) => r.histogram === null).map((r) => [r.bucketSeconds, r.second])).toEqual(
      expect.arrayContaining([
        [5, 70],
        [15, 60],
        [30, 60],
        [60, 60],
        [7, 70],
        [300, 0],
      ]),
    );
  });
});

describe("rollupLevelFor", () => {
  it("picks the finest level that keeps a cell within the limit", () => {
    expect(rollupLevelFor(2_001, 2_000)).toBe(5);
    expect(rollupLevelFor(10_000, 2_000)).toBe(5);
    expect(rollupLevelFor(10_001, 2_000)).toBe(30);
    expect(rollupLevelFor(86_400, 2_000)).toBe(60);
    expect(rollupLevelFor(120_001, 2_000)).toBe(300);
    // A report's 600 points: 24 h in 5 min buckets; beyond 50 h, no level fits.
    expect(rollupLevelFor(86_400, 600)).toBe(300);
    expect(rollupLevelFor(180_000, 600)).toBe(300);
    expect(rollupLevelFor(180_001, 600)).toBeNull();
  });
});
