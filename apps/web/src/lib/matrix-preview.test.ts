import { describe, expect, it } from "vitest";
import { CELL_START_STOP_SEC, estimateMatrix, formatApproxDuration, splitVuList } from "./matrix-preview";

describe("matrix preview", () => {
  it("splits a list of load levels on commas, spaces and semicolons", () => {
    expect(splitVuList("10, 50,100  200;5")).toEqual(["10", "50", "100", "200", "5"]);
    expect(splitVuList(" , ")).toEqual([]);
    expect(splitVuList("0")).toEqual(["0"]);
  });

  it("counts servers × levels × rounds and the wall time of all cells", () => {
    const estimate = estimateMatrix({
      servers: 3,
      scenarios: 1,
      levels: 2,
      rounds: 2,
      durationSec: 30,
      warmupSec: 5,
      cooldownSec: 2,
    });
    expect(estimate.cells).toBe(12);
    expect(estimate.cellSec).toBe(5 + 30 + 2 + CELL_START_STOP_SEC);
    expect(estimate.totalSec).toBe(12 * estimate.cellSec);
    expect(formatApproxDuration(estimate.totalSec)).toBe("~8 min");
  });

  it("rounds the estimate to what a person reads", () => {
    expect(formatApproxDuration(0)).toBe("~5 s");
    expect(formatApproxDuration(42)).toBe("~40 s");
    expect(formatApproxDuration(89)).toBe("~90 s");
    expect(formatApproxDuration(150)).toBe("~3 min");
    expect(formatApproxDuration(3 * 3600 + 20 * 60 + 10)).toBe("~3 h 20 min");
  });
});
