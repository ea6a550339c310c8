import { describe, expect, it } from "vitest";
import { maxOf, meanOf } from "./stats.ts";

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
