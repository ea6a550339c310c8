import { describe, expect, it } from "vitest";
import {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  latencyStats,
  mergeEncoded,
} from "./histogram.ts";

/** Deterministic pseudo-random latencies with a long tail, in microseconds. */
function samples(seed: number, n: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const u = x / 2147483648;
    out.push(Math.max(1, Math.round(200 + 50_000 * u ** 6)));
  }
  return out;
}

function exactPercentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

describe("histogram", () => {
  it("merges histograms before taking percentiles: equal to percentiles of the concatenated samples", () => {
    const parts = [samples(1, 5000), samples(2, 300), samples(3, 12000)];
    const encoded = parts.map((part) => {
      const h = createLatencyHistogram();
      for (const v of part) h.recordValue(v);
      return encodeHistogram(h);
    });
    const merged = mergeEncoded(encoded);
    const all = parts.flat().sort((a, b) => a - b);
    expect(merged.totalCount).toBe(all.length);
    for (const p of [50, 90, 95, 99, 99.9]) {
      const exact = exactPercentile(all, p);
      // 3 significant digits: relative error below 0.1 %.
      expect(Math.abs(merged.getValueAtPercentile(p) - exact) / exact).toBeLessThan(0.001);
    }
  });

  it("shows that averaging per-part p99 would be wrong for skewed parts", () => {
    const quiet = samples(4, 10_000).map(() => 1000);
    const burst = samples(5, 100).map(() => 90_000);
    const encoded = [quiet, burst].map((part) => {
      const h = createLatencyHistogram();
      for (const v of part) h.recordValue(v);
      return encodeHistogram(h);
    });
    const mergedP99 = mergeEncoded(encoded).getValueAtPercentile(99);
    const averagedP99 = (1000 + 90_000) / 2;
    expect(Math.abs(mergedP99 - 1000) / 1000).toBeLessThan(0.001);
    expect(averagedP99).toBeGreaterThan(mergedP99 * 40);
  });

  it("round-trips through the compressed base64 encoding", () => {
    const h = createLatencyHistogram();
    for (const v of samples(6, 1000)) h.recordValue(v);
    const back = decodeHistogram(encodeHistogram(h));
    expect(back.totalCount).toBe(1000);
    expect(back.getValueAtPercentile(99)).toBe(h.getValueAtPercentile(99));
  });

  it("reports milliseconds and nulls for an empty histogram", () => {
    expect(latencyStats(createLatencyHistogram()).p99).toBeNull();
    const h = createLatencyHistogram();
    h.recordValue(2500);
    const stats = latencyStats(h);
    expect(stats.count).toBe(1);
    expect(stats.p50).toBeCloseTo(2.5, 2);
  });
});
