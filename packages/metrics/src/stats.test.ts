import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { describe, expect, it } from "vitest";
import { maxOf, meanOf, spreadOf, t95 } from "./stats.ts";

describe("meanOf and maxOf", () => {
  it("skip the seconds without a reading, and give null when none has one", () => {
    expect(meanOf([1, null, 3])).toBe(2);
    expect(maxOf([null, -2, -5, null])).toBe(-2);
    expect(meanOf([null, null])).toBeNull();
    expect(maxOf([])).toBeNull();
  });

  it("take a week of seconds (more values than a spread call may pass)", () => {
    const week = Array.from({ length: 7 * 86_400 }, (_, i) => (i === 123_456 ? 9_999 : i % 100));
    expect(maxOf(week)).toBe(9_999);
    expect(meanOf(week)).toBeCloseTo(49.5 + (9_999 - 56) / week.length, 9);
  });
});

describe("spreadOf", () => {
  it("gives the mean, sample sd, CV and the Student t interval of the mean", () => {
    // Five rounds: mean 100, squared deviations 400 + 100 + 0 + 100 + 400 = 1,000, sd √(1,000 / 4).
    const s = spreadOf([80, 90, 100, 110, 120])!;
    expect(s.n).toBe(5);
    expect(s.mean).toBe(100);
    expect(s.sd).toBeCloseTo(Math.sqrt(250), 12);
    expect(s.cv).toBeCloseTo(Math.sqrt(250) / 100, 12);
    // t(0.975, 4) = 2.776 (any table): the half-width is 2.776 · sd / √5.
    const half = 2.7764451 * (Math.sqrt(250) / Math.sqrt(5));
    expect(s.ci95![0]).toBeCloseTo(100 - half, 4);
    expect(s.ci95![1]).toBeCloseTo(100 + half, 4);
    expect([s.min, s.max]).toEqual([80, 120]);
  });

  it("has no interval or CV for a single round, and skips missing or non-finite values", () => {
    expect(spreadOf([42, null, undefined, Number.NaN])).toEqual({
      n: 1,
      mean: 42,
      sd: 0,
      cv: null,
      ci95: null,
      min: 42,
      max: 42,
    });
    expect(spreadOf([null, Number.POSITIVE_INFINITY])).toBeNull();
    expect(spreadOf([-5, 5])!.cv).toBeNull();
  });

  it("gives Student's t quantile within 1e-6 of stdlib's exact one, for every round count", () => {
    for (let df = 1; df <= 1_000; df++) {
      const exact = tQuantile(0.975, df);
      expect(Math.abs(t95(df) - exact) / exact, `df ${df}`).toBeLessThan(1e-6);
    }
    expect(() => t95(0)).toThrow(RangeError);
  });

  it("widens the interval for few rounds the way Student's t does", () => {
    expect(t95(1)).toBeCloseTo(12.7062, 3);
    expect(t95(2)).toBeCloseTo(4.3027, 3);
    expect(t95(29)).toBeCloseTo(2.0452, 3);
    expect(t95(10_000)).toBeCloseTo(1.96, 2);
  });
});
