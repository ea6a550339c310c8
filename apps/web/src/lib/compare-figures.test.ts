import { describe, expect, it } from "vitest";
import { cell, resetCells, summary } from "./cell-fixtures";
import { compareCells } from "./compare";

describe("compareCells: the studies' figures", () => {
  it("gives each group requests per MB, latency spread, longest GC pause and timeouts in % of calls", () => {
    resetCells();
    const measured = (rpsPerMb: number, stddev: number, gcMax: number | null, timeouts: number | null) => ({
      ...summary(1000, 4, 10),
      ops: 200,
      requests: 800,
      rpsPerMb,
      latencyStddevMs: stddev,
      gcPauseMaxMs: gcMax,
      timeouts,
    });
    const cells = [
      cell("go", 10, 1, measured(100, 0.5, 1, 10)),
      cell("go", 10, 2, measured(120, 0.7, 3, 30)),
      cell("bun", 10, 1, measured(50, 2, null, 0)),
      // A report frozen before the figures existed has none of them.
      cell("node", 10, 1, summary(500, 8, 40)),
    ];
    const [w] = compareCells(cells, ["go", "bun", "node"]).workloads;
    const group = (name: string) => w!.groups.find((g) => g.serverName === name)!;
    expect(group("go").rpsPerMb?.mean).toBe(110);
    expect(group("go").latencyStddevMs?.mean).toBeCloseTo(0.6, 9);
    expect(group("go").gcPauseMaxMs?.mean).toBe(2);
    // 10 and 30 timeouts of 200 calls: 5 % and 15 %.
    expect(group("go").timeoutsPct?.mean).toBe(10);
    expect(group("bun").gcPauseMaxMs).toBeNull();
    expect(group("bun").timeoutsPct?.mean).toBe(0);
    expect(group("node")).toMatchObject({
      rpsPerMb: null,
      latencyStddevMs: null,
      gcPauseMaxMs: null,
      timeoutsPct: null,
    });
  });
});
