import { z } from "zod";
import { runtimeOfPoint } from "./points.ts";
import { ZCellStatus, ZRunStatus } from "./statuses.ts";

/** Channel on which the worker publishes live events of one run. */
export const runChannel = (runId: string) => `perflab:run:${runId}`;

export const ZLivePoint = z.object({
  type: z.literal("point"),
  cellId: z.string(),
  t: z.number(),
  second: z.number().int(),
  phase: z.enum(["warmup", "measure"]),
  rps: z.number(),
  errors: z.number(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  cpuPct: z.number().nullable(),
  rssBytes: z.number().nullable(),
  k6CpuPct: z.number().nullable(),
  /** The server runtime's managed heap in use (/debug/runtime), beside RSS; absent in older reports. */
  heapUsedBytes: z.number().nullable().optional(),
  /** The longest single GC pause of the second, ms; absent in older reports. */
  gcPauseMaxMs: z.number().nullable().optional(),
});

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

export const ZLiveEvent = z.discriminatedUnion("type", [ZLivePoint, ZLiveCellStatus, ZLiveRunStatus]);
export type TLivePoint = z.infer<typeof ZLivePoint>;
export type TLiveEvent = z.infer<typeof ZLiveEvent>;

/** One second of a cell as measured: the fields of a point event it carries (metrics' SecondPoint has them). */
export type LiveSecond = Omit<TLivePoint, "type" | "cellId" | "second" | "heapUsedBytes" | "gcPauseMaxMs"> & {
  runtime?: unknown;
};

/**
 * The `point` event the worker publishes for one measured second of a cell, numbered from the
 * load's start (`loadStartT`, in the same seconds as `t`). Only the fields the live view draws are
 * sent, whatever else the second holds.
 */
export function livePointEvent(cellId: string, point: LiveSecond, loadStartT: number): TLivePoint {
  return {
    type: "point",
    cellId,
    t: point.t,
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

/** A point's heap and longest GC pause, from the runtime document its second stored. */
export function runtimePointFields(runtime: unknown): Pick<TLivePoint, "heapUsedBytes" | "gcPauseMaxMs"> {
  const { heapUsedBytes, gcPauseMaxMs } = runtimeOfPoint(runtime);
  return { heapUsedBytes, gcPauseMaxMs };
}
