import { describe, expect, it } from "vitest";
import { cell as fixtureCell } from "./cell-fixtures";
import { downsamplePoints, MAX_POINTS_PER_CELL } from "./downsample";
import type { CellDto, RunDto } from "./dto";
import { pointAt } from "./point-fixture";
import { defaultChartCell, type RunState, reduceRunState, runProgress } from "./run-state";

const run: RunDto = {
  id: "r1",
  name: "go",
  source: "ui",
  status: "queued",
  spec: {} as RunDto["spec"],
  baselineRunId: null,
  error: null,
  cellsTotal: 2,
  cellsDone: 0,
  cellsFailed: 0,
  createdAt: "2025-01-01T00:00:00.000Z",
  startedAt: null,
  finishedAt: null,
};
const cell = (id: string, index: number): CellDto => ({
  ...fixtureCell("go", 10, 1, null, "queued", {}),
  id,
  index,
  warmupSeconds: 2,
});
const initial: RunState = { run, cells: [cell("c1", 0), cell("c2", 1)], points: {} };
const point = (cellId: string, second: number) => pointAt(second, { cellId });

describe("reduceRunState", () => {
  it("applies run progress only for its own run", () => {
    const next = reduceRunState(initial, {
      type: "run",
      runId: "r1",
      status: "running",
      cellsDone: 1,
      cellsTotal: 2,
    });
    expect(next.run).toMatchObject({ status: "running", cellsDone: 1 });
    expect(
      reduceRunState(initial, { type: "run", runId: "other", status: "failed", cellsDone: 2, cellsTotal: 2 }),
    ).toBe(initial);
  });

  it("updates a cell's status and stage and keeps the stage when the next event has none", () => {
    let next = reduceRunState(initial, { type: "cell", cellId: "c2", status: "running", stage: "load" });
    next = reduceRunState(next, { type: "cell", cellId: "c2", status: "failed", error: "exit 2" });
    expect(next.cells[1]).toMatchObject({ status: "failed", stage: "load", error: "exit 2" });
    expect(next.cells[0]?.status).toBe("queued");
  });

  it("shows a started cell's enforced limits and image from its live event", () => {
    const started = {
      limits: { cpus: 1, memoryMb: 256, cpuset: "0" },
      image: "perflab/go:abc",
      imageId: "sha256:0123",
    };
    const next = reduceRunState(initial, {
      type: "cell",
      cellId: "c1",
      status: "running",
      stage: "waiting for health",
      started,
    });
    expect(next.cells[0]).toMatchObject({ status: "running", ...started });
    // A later event without them keeps them.
    const later = reduceRunState(next, { type: "cell", cellId: "c1", status: "running", stage: "load" });
    expect(later.cells[0]).toMatchObject(started);
    expect(later.cells[1]).toMatchObject({ limits: null, image: null, imageId: null });
  });

  it("collects points per cell and ignores points of unknown cells", () => {
    let next = reduceRunState(initial, point("c1", 0));
    next = reduceRunState(next, point("c1", 1));
    next = reduceRunState(next, point("zz", 0));
    expect(next.points.c1).toHaveLength(2);
    expect(next.points.zz).toBeUndefined();
  });

  it("keeps live points when fresh server props arrive", () => {
    const withPoint = reduceRunState(initial, point("c1", 0));
    const next = reduceRunState(withPoint, {
      type: "props",
      run: { ...run, status: "succeeded" },
      cells: initial.cells,
    });
    expect(next.run.status).toBe("succeeded");
    expect(next.points.c1).toHaveLength(1);
  });

  it("charts the running cell first, else the last cell with data", () => {
    const running = reduceRunState(initial, { type: "cell", cellId: "c2", status: "running" });
    expect(defaultChartCell(running)).toBe("c2");
    expect(defaultChartCell(reduceRunState(initial, point("c1", 0)))).toBe("c1");
  });

  it("opens a finished run on its last succeeded cell, not a later one without a result", () => {
    const finished: RunState = {
      run: { ...run, status: "partial", cellsDone: 2 },
      cells: [
        { ...cell("c1", 0), status: "succeeded" },
        { ...cell("c2", 1), status: "failed" },
      ],
      points: { c1: [point("c1", 0)], c2: [point("c2", 0)] },
    };
    expect(defaultChartCell(finished)).toBe("c1");
    // Nothing succeeded: the last cell with data.
    const failed = { ...finished, cells: finished.cells.map((c) => ({ ...c, status: "failed" as const })) };
    expect(defaultChartCell(failed)).toBe("c2");
  });
});

describe("runProgress", () => {
  it("moves during a running cell by its elapsed seconds, and never reaches the next cell early", () => {
    const running: RunState = {
      run: { ...run, status: "running", cellsDone: 1 },
      cells: [
        { ...cell("c1", 0), status: "succeeded" },
        { ...cell("c2", 1), status: "running" },
      ],
      points: { c2: [point("c2", 1), point("c2", 2), point("c2", 3)] },
    };
    // 3 of 12 seconds (2 s warm-up + 10 s measured) into the second cell.
    expect(runProgress(running)).toBeCloseTo(1.25, 5);
    const overrun = {
      ...running,
      points: { c2: Array.from({ length: 20 }, (_, i) => point("c2", i + 1)) },
    };
    expect(runProgress(overrun)).toBeCloseTo(1.99, 5);
    expect(runProgress(initial)).toBe(0);
  });

  it("counts a long cell's elapsed seconds, not its thinned points, and never goes backwards", () => {
    const day: RunState = {
      run: { ...run, status: "running", cellsTotal: 1 },
      cells: [{ ...cell("c1", 0), status: "running", warmupSeconds: 0, durationSeconds: 86_400 }],
      points: {},
    };
    let state = day;
    let previous = 0;
    const progressAt: number[] = [];
    for (let second = 0; second < 4_001; second++) {
      state = reduceRunState(state, point("c1", second));
      const progress = runProgress(state);
      expect(progress).toBeGreaterThanOrEqual(previous);
      previous = progress;
      progressAt.push(progress);
    }
    // The 4,001st second halved the series.
    expect(state.points.c1!.length).toBeLessThanOrEqual(MAX_POINTS_PER_CELL + 1);
    expect(progressAt[3_998]).toBeCloseTo(3_999 / 86_400, 6);
    expect(progressAt[4_000]).toBeCloseTo(4_001 / 86_400, 6);
    expect(progressAt[4_000]! * 100).toBeCloseTo(4.6, 1);
    // A page opened late gets the series already thinned (by the snapshot): the same share.
    const snapshot = downsamplePoints(
      Array.from({ length: 4_000 }, (_, second) => point("c1", second)),
      MAX_POINTS_PER_CELL,
    );
    expect(snapshot).toHaveLength(MAX_POINTS_PER_CELL);
    expect(runProgress({ ...day, points: { c1: snapshot } }) * 100).toBeCloseTo(4.6, 1);
  });
});
