import { z } from "zod";

/** Which part of a cell a second belongs to: the warm-up, or the measured window the summary covers. */
export const ZPhase = z.enum(["warmup", "measure"]);

const count = z.number().int().nonnegative();
const ms = z.number().nullable();

/**
 * One second of a cell, as the worker aggregates it while k6 runs and the upload ingest decodes it:
 * what is written to Postgres (idempotently, keyed by its second: @perflab/db upsertMetricPoints),
 * published live (livePointEvent) and rolled up. Latencies in milliseconds; `histogram` is the
 * second's merged HDR histogram (compressed, base64), null when it held no request.
 */
export const ZSecondPoint = z.object({
  /** Unix time in seconds. */
  t: z.number().int(),
  phase: ZPhase,
  requests: count,
  errors: count,
  /** Requests of the scenario's operation method (MCP's tools/call, http-route's GET). */
  ops: count,
  rps: z.number(),
  p50: ms,
  p90: ms,
  p95: ms,
  p99: ms,
  max: ms,
  mean: ms,
  histogram: z.string().nullable(),
  dataSent: z.number(),
  dataReceived: z.number(),
  /** The server's CPU (% of one core) and RSS, then k6's and the host's, from the 1 Hz sampler. */
  cpuPct: z.number().nullable(),
  rssBytes: z.number().nullable(),
  k6CpuPct: z.number().nullable(),
  k6RssBytes: z.number().nullable(),
  hostCpuPct: z.number().nullable(),
  /** What the server's runtime reported that second (GC, heap, threads), when it reports any. */
  runtime: z.unknown(),
});
export type TSecondPoint = z.infer<typeof ZSecondPoint>;
export type TPhase = z.infer<typeof ZPhase>;

/**
 * One second of a cell, or a bucket of seconds of a long one, as the API, a report's snapshot and
 * the live view send it: the snapshot's stored points and the worker's live `point` events alike.
 * A bucket's rates, errors and CPU are per second (its seconds' mean).
 */
export const ZPoint = z.object({
  type: z.literal("point"),
  cellId: z.string(),
  t: z.number().describe("Start of the second (of a bucket: its first second), in Unix epoch milliseconds."),
  second: z.number().int().describe("Seconds since the cell's load started."),
  phase: ZPhase,
  rps: z.number(),
  /** Per second, like `rps`. */
  errors: z.number(),
  p50: ms,
  p95: ms,
  p99: ms,
  cpuPct: z.number().nullable(),
  rssBytes: z.number().nullable(),
  k6CpuPct: z.number().nullable(),
  /** The server runtime's managed heap in use (/debug/runtime), beside RSS; absent in older reports. */
  heapUsedBytes: z.number().nullable().optional(),
  /** The longest single GC pause of the second, ms; absent in older reports. */
  gcPauseMaxMs: z.number().nullable().optional(),
});
export type TPoint = z.infer<typeof ZPoint>;

/**
 * The figures a second's stored `runtime` holds (the server's /debug/runtime as the worker's
 * sampler keeps it: servers/CONTRACT.md section 7, its pause list reduced to `gc_pause_max_ms`,
 * the longest pause since the previous reading); null where it has none.
 */
export function runtimeOfPoint(runtime: unknown): {
  heapUsedBytes: number | null;
  gcCount: number | null;
  gcPauseTotalMs: number | null;
  gcPauseMaxMs: number | null;
} {
  const r = runtime && typeof runtime === "object" ? (runtime as Record<string, unknown>) : {};
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  return {
    heapUsedBytes: num(r.heap_used_bytes),
    gcCount: num(r.gc_count),
    gcPauseTotalMs: num(r.gc_pause_total_ms),
    gcPauseMaxMs: num(r.gc_pause_max_ms),
  };
}

/** A point's heap and longest GC pause, from the runtime document its second stored. */
export function runtimePointFields(runtime: unknown): Pick<TPoint, "heapUsedBytes" | "gcPauseMaxMs"> {
  const { heapUsedBytes, gcPauseMaxMs } = runtimeOfPoint(runtime);
  return { heapUsedBytes, gcPauseMaxMs };
}
