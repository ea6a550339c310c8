import { describe, expect, it } from "vitest";
import { fibonacci, padMessage, transformData, Xorshift32 } from "../src/compute.js";

describe("compute", () => {
  it("xorshift32 from seed 42 yields the contract's first outputs", () => {
    const rng = new Xorshift32(42);
    expect(Array.from({ length: 5 }, () => rng.next())).toEqual([
      11355432, 2836018348, 476557059, 3648046016, 3759983556,
    ]);
  });

  it("pads to exactly pad_to_bytes UTF-8 bytes and never truncates", () => {
    for (const size of [0, 1, 63, 64, 65, 1024, 1048576]) {
      expect(Buffer.byteLength(padMessage("hello", size))).toBe(Math.max(size, 5));
    }
    expect(padMessage("héllo", 8)).toBe("hélloAB");
    expect(padMessage("a long message", 3)).toBe("a long message");
  });

  it("computes fibonacci by recursion with exact values", () => {
    expect([0, 1, 2, 10, 30].map(fibonacci)).toEqual([0, 1, 1, 55, 832040]);
  });

  it("aggregates every record once, in category order", () => {
    const { size, groups } = JSON.parse(transformData(100000)) as {
      size: number;
      groups: { category: string; count: number; regions: Record<string, number> }[];
    };
    expect(size).toBe(100000);
    expect(groups.map((g) => g.category)).toEqual([...groups.map((g) => g.category)].sort());
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(100000);
    for (const g of groups) expect(Object.values(g.regions).reduce((a, b) => a + b, 0)).toBe(g.count);
  });
});
