import { describe, expect, it } from "vitest";
import { chartedPoints } from "./charted";

describe("chartedPoints", () => {
  it("keeps the seconds of warm-up and duration and leaves out the partial second after them", () => {
    const points = [0, 1, 2, 3, 4, 5, 6].map((second) => ({ second, rps: second === 5 ? 300 : 1000 }));
    const charted = chartedPoints(points, { warmupSeconds: 2, durationSeconds: 3 });
    expect(charted.map((p) => p.second)).toEqual([0, 1, 2, 3, 4]);
    expect(charted.every((p) => p.rps === 1000)).toBe(true);
  });

  it("keeps every second of a cell that ended early", () => {
    const points = [0, 1, 2].map((second) => ({ second }));
    expect(chartedPoints(points, { warmupSeconds: 0, durationSeconds: 10 })).toEqual(points);
  });
});
