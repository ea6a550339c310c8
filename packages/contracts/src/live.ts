import { z } from "zod";

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
});

export const ZLiveCellStatus = z.object({
  type: z.literal("cell"),
  cellId: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
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
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled", "partial"]),
  cellsDone: z.number().int(),
  cellsTotal: z.number().int(),
});

export const ZLiveEvent = z.discriminatedUnion("type", [ZLivePoint, ZLiveCellStatus, ZLiveRunStatus]);
export type TLivePoint = z.infer<typeof ZLivePoint>;
export type TLiveEvent = z.infer<typeof ZLiveEvent>;
