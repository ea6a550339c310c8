import { z } from "zod";
import { runtimePointFields, type TPoint, type TSecondPoint, ZPoint } from "./points.ts";
import { ZCellStatus, ZRunStatus } from "./statuses.ts";

/** Channel on which the worker publishes live events of one run. */
export const runChannel = (runId: string) => `perflab:run:${runId}`;

export const ZLiveCellStatus = z.object({
  type: z.literal("cell"),
  cellId: z.string(),
  status: ZCellStatus,
  stage: z.string().optional(),
  error: z.string().nullable().optional(),
  /**
   * Sent once the server has started: what the driver enforced (null for a plain process) and the
   * image that ran, so a live page shows them without reloading.
   */
  started: z
    .object({
      limits: z.object({ cpus: z.number(), memoryMb: z.number(), cpuset: z.string().nullable() }).nullable(),
      image: z.string().nullable(),
      imageId: z.string().nullable(),
    })
    .optional(),
});

export const ZLiveRunStatus = z.object({
  type: z.literal("run"),
  runId: z.string(),
  status: ZRunStatus,
  cellsDone: z.number().int(),
  cellsTotal: z.number().int(),
});

/** What the worker publishes on a run's channel: a measured second (a `point`), a cell's or the run's status. */
export const ZLiveEvent = z.discriminatedUnion("type", [ZPoint, ZLiveCellStatus, ZLiveRunStatus]);
export type TLiveEvent = z.infer<typeof ZLiveEvent>;

/** The fields of a measured second (metrics' SecondPoint) that its point event carries. */
export type LiveSecond = Pick<
  TSecondPoint,
  "t" | "phase" | "rps" | "errors" | "p50" | "p95" | "p99" | "cpuPct" | "rssBytes" | "k6CpuPct"
> & { runtime?: unknown };

/**
 * The `point` event the worker publishes for one measured second of a cell, numbered from the
 * load's start (`loadStartT`, in the same seconds as `t`). Only the fields the live view draws are
 * sent, whatever else the second holds; `t` in milliseconds, like the stored points of the snapshot.
 */
export function livePointEvent(cellId: string, point: LiveSecond, loadStartT: number): TPoint {
  return {
    type: "point",
    cellId,
    t: point.t * 1000,
    second: point.t - loadStartT,
    phase: point.phase,
    rps: point.rps,
    errors: point.errors,
    p50: point.p50,
    p95: point.p95,
    p99: point.p99,
    cpuPct: point.cpuPct,
    rssBytes: point.rssBytes,
    k6CpuPct: point.k6CpuPct,
    ...runtimePointFields(point.runtime),
  };
}
