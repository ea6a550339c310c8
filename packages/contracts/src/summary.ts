import { z } from "zod";
import { ZDrift, ZLatencyDto } from "./api.ts";

const rate = z.number();
const nullable = z.number().nullable();

/** Latency over merged histograms, in milliseconds; every figure null when `count` is 0. */
export const ZLatencyStats = ZLatencyDto.extend({ count: z.number().int().nonnegative() });

/** One operation (method, tool) of a cell's measured window. */
export const ZOperationStats = z.object({
  method: z.string(),
  tool: z.string(),
  count: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  /** Requests that hit the client's timeout (k6 error_code 1050), not counted in `errors`. */
  timeouts: z.number().int().nonnegative().optional(),
  p50: nullable,
  p90: nullable,
  p95: nullable,
  p99: nullable,
  avgMs: nullable,
});

/**
 * A cell's summary over its measured window, as the worker computes it while k6 runs and the upload
 * ingest computes it from the output (metrics' CellAggregator.summary), before it is stored as the
 * `cell_summaries` row (metrics' cellSummaryRecord).
 */
export const ZCellSummaryData = z.object({
  requests: z.number().int().nonnegative(),
  /** Failed operations, timeouts not included. */
  errors: z.number().int().nonnegative(),
  /**
   * Requests that hit the client's timeout (the matrix's `timeoutMs`; k6 error_code 1050), counted
   * apart from errors; null where the source cannot tell them apart (an uploaded k6 summary).
   */
  timeouts: nullable,
  ops: z.number().int().nonnegative(),
  httpRps: rate,
  opsRps: rate,
  requestsPerOp: nullable,
  latency: ZLatencyStats,
  operations: z.array(ZOperationStats),
  /** The measured window's merged histogram (compressed, base64). */
  histogram: z.string(),
  measuredSeconds: z.number(),
  windowStart: nullable,
  windowEnd: nullable,
  dataSent: z.number(),
  dataReceived: z.number(),
  cpuAvgPct: nullable,
  cpuPeakPct: nullable,
  rssAvgBytes: nullable,
  rssPeakBytes: nullable,
  k6CpuAvgPct: nullable,
  k6CpuPeakPct: nullable,
  k6RssPeakBytes: nullable,
  hostCpuAvgPct: nullable,
  /**
   * Open model: calls k6 dropped for want of a free VU in the measured window's seconds (from the
   * first second with a measured request on, as the points' phase); null when no line carries a
   * dropped count (output of a perflab k6 from before it wrote one).
   */
  droppedCalls: nullable,
  /** How the end of the measured window compares with its start; null for windows under 20 s. */
  drift: ZDrift.nullable(),
  /** Standard deviation of the latencies of the merged histogram `latency` is read from, in ms. */
  latencyStddevMs: nullable,
  /**
   * The server runtime's GC over the measured window (servers/CONTRACT.md section 7): collections
   * per second and pause per collection from its monotone counters, the longest single pause from
   * its numbered pause list; null where the runtime does not report them (Bun, an uploaded run).
   */
  gcCollectionsPerSec: nullable,
  gcPauseAvgMs: nullable,
  gcPauseMaxMs: nullable,
});

export type TLatencyStats = z.infer<typeof ZLatencyStats>;
export type TOperationStats = z.infer<typeof ZOperationStats>;
export type TCellSummaryData = z.infer<typeof ZCellSummaryData>;
export type TDrift = z.infer<typeof ZDrift>;
