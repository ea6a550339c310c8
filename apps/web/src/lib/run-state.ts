import type { TLiveEvent } from "@perflab/contracts";
import { downsamplePoints, MAX_POINTS_PER_CELL, upsertPoint } from "./downsample";
import type { CellDto, PointDto, RunDto, RunSnapshotEvent } from "./dto";

export type RunState = { run: RunDto; cells: CellDto[]; points: Record<string, PointDto[]> };

export type RunAction = RunSnapshotEvent | TLiveEvent | { type: "props"; run: RunDto; cells: CellDto[] };

/**
 * Folds the SSE stream into what the run page shows. A snapshot replaces everything (it is sent
 * again after every reconnect); live events patch it; fresh server props keep the live points.
 */
export function reduceRunState(state: RunState, action: RunAction): RunState {
  switch (action.type) {
    case "snapshot":
      return { run: action.run, cells: action.cells, points: action.points };
    case "props":
      return {
        ...state,
        run: action.run,
        cells: action.cells.map((cell) => ({
          ...cell,
          stage: cell.stage ?? state.cells.find((c) => c.id === cell.id)?.stage ?? null,
        })),
      };
    case "run":
      if (action.runId !== state.run.id) return state;
      return {
        ...state,
        run: {
          ...state.run,
          status: action.status,
          cellsDone: action.cellsDone,
          cellsTotal: action.cellsTotal,
        },
      };
    case "cell":
      return {
        ...state,
        cells: state.cells.map((cell) =>
          cell.id === action.cellId
            ? {
                ...cell,
                status: action.status,
                stage: action.stage ?? cell.stage,
                error: action.error === undefined ? cell.error : action.error,
                ...(action.started ?? {}),
              }
            : cell,
        ),
      };
    case "point": {
      if (!state.cells.some((c) => c.id === action.cellId)) return state;
      let series = upsertPoint(state.points[action.cellId] ?? [], action);
      // A live series is halved rather than grown without bound during a long soak. The newest second
      // stays as it is: the progress bar reads the elapsed time from it.
      if (series.length > 2 * MAX_POINTS_PER_CELL) {
        const newest = series[series.length - 1]!;
        series = [...downsamplePoints(series.slice(0, -1), MAX_POINTS_PER_CELL), newest];
      }
      return { ...state, points: { ...state.points, [action.cellId]: series } };
    }
    default:
      return state;
  }
}

/**
 * The cell whose chart is shown when the user picked none: the running one, else the latest that
 * succeeded, else the latest with data (a failed cell's seconds are still worth a look).
 */
export function defaultChartCell(state: RunState): string | null {
  const running = state.cells.find((c) => c.status === "running");
  if (running) return running.id;
  const succeeded = state.cells.filter((c) => c.status === "succeeded");
  if (succeeded.length > 0) return succeeded[succeeded.length - 1]!.id;
  const withPoints = state.cells.filter((c) => (state.points[c.id]?.length ?? 0) > 0);
  return withPoints[withPoints.length - 1]?.id ?? state.cells[0]?.id ?? null;
}

/** Seconds from a series' first second to its newest one, both included; 0 without points. */
function elapsedSeconds(points: { second: number }[] | undefined): number {
  const first = points?.[0];
  const last = points?.[points.length - 1];
  return first && last ? last.second - first.second + 1 : 0;
}

/**
 * Cells done plus the elapsed share of each running cell's warm-up and measured window, so the
 * progress bar moves during a cell, not only between cells. Elapsed seconds, not the number of
 * points: a long cell's series is thinned to buckets.
 */
export function runProgress(state: RunState): number {
  let progress = state.run.cellsDone;
  for (const cell of state.cells) {
    if (cell.status !== "running") continue;
    const seconds = cell.warmupSeconds + cell.durationSeconds;
    if (seconds > 0) progress += Math.min(0.99, elapsedSeconds(state.points[cell.id]) / seconds);
  }
  return Math.min(progress, state.run.cellsTotal);
}
