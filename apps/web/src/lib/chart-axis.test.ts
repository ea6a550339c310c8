import { describe, expect, it } from "vitest";
import { maxOf, niceScale, niceStep, secondTicks } from "./chart-axis";

describe("niceStep", () => {
  it("rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect(niceStep(950)).toBe(1000);
    expect(niceStep(0.13)).toBe(0.2);
    expect(niceStep(2.2)).toBe(2.5);
    expect(niceStep(3)).toBe(5);
    expect(niceStep(7)).toBe(10);
    expect(niceStep(0)).toBe(1);
  });

  it("keeps whole numbers where the axis counts whole things", () => {
    expect(niceStep(2.2, true)).toBe(5);
    expect(niceStep(0.3, true)).toBe(1);
    expect(niceStep(22, true)).toBe(25);
  });
});

describe("niceScale", () => {
  it("spans the data from 0 to a round top, in round steps", () => {
    // What recharts drew as 0 / 950 / 1900 / 2850 / 3800.
    expect(niceScale(3800)).toEqual({ top: 4000, ticks: [0, 1000, 2000, 3000, 4000] });
    expect(niceScale(6000)).toEqual({ top: 6000, ticks: [0, 2000, 4000, 6000] });
    expect(niceScale(0.42)).toEqual({ top: 0.6, ticks: [0, 0.2, 0.4, 0.6] });
    expect(niceScale(87.3).ticks).toEqual([0, 25, 50, 75, 100]);
  });

  it("draws an axis without data from 0 to 1", () => {
    expect(niceScale(0)).toEqual({ top: 1, ticks: [0, 0.25, 0.5, 0.75, 1] });
    expect(niceScale(Number.NaN).top).toBe(1);
  });

  it("gives no tick a float's noise", () => {
    for (const tick of niceScale(0.7).ticks) expect(String(tick)).toMatch(/^\d(\.\d{1,2})?$/);
  });
});

describe("secondTicks", () => {
  it("ticks a time axis at round seconds, a few of them", () => {
    expect(secondTicks(17)).toEqual([0, 5, 10, 15]);
    expect(secondTicks(35)).toEqual([0, 10, 20, 30]);
    expect(secondTicks(5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(secondTicks(65)).toEqual([0, 15, 30, 45, 60]);
    expect(secondTicks(600)).toEqual([0, 120, 240, 360, 480, 600]);
    expect(secondTicks(0)).toEqual([0, 1]);
    // A point a second before the load's first: the axis starts there, its ticks still round.
    expect(secondTicks(6, 6, -1)).toEqual([0, 2, 4, 6]);
    expect(secondTicks(4, 6, -1)).toEqual([-1, 0, 1, 2, 3, 4]);
    expect(secondTicks(30, 6, -1)).toEqual([0, 10, 20, 30]);
  });
});

describe("maxOf", () => {
  it("takes the largest finite number under the keys", () => {
    expect(
      maxOf(
        [
          { a: 1, b: null },
          { a: 3, b: 7, c: 99 },
        ],
        ["a", "b"],
      ),
    ).toBe(7);
    expect(maxOf([], ["a"])).toBe(0);
  });
});
