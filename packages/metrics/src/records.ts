import type { CellSummaryData } from "./cell-aggregator.ts";

const big = (v: number | null) => (v === null ? null : BigInt(Math.round(v)));

/**
 * A cell summary as the `cell_summaries` row stores it (counts as BigInt, window as dates), shared by
 * the worker and the upload API so both write the same columns from the same aggregation.
 */
export function cellSummaryRecord(s: CellSummaryData, k6Requests: number | null) {
  return {
    requests: BigInt(s.requests),
    errors: BigInt(s.errors),
    timeouts: s.timeouts === null ? null : BigInt(s.timeouts),
    ops: BigInt(s.ops),
    httpRps: s.httpRps,
    opsRps: s.opsRps,
    requestsPerOp: s.requestsPerOp,
    latencyAvgMs: s.latency.avgMs,
    latencyMinMs: s.latency.minMs,
    latencyMaxMs: s.latency.maxMs,
    latencyP50Ms: s.latency.p50,
    latencyP90Ms: s.latency.p90,
    latencyP95Ms: s.latency.p95,
    latencyP99Ms: s.latency.p99,
    latencyP999Ms: s.latency.p999,
    byOperation: s.operations as never,
    cpuAvgPct: s.cpuAvgPct,
    cpuPeakPct: s.cpuPeakPct,
    rssAvgBytes: big(s.rssAvgBytes),
    rssPeakBytes: big(s.rssPeakBytes),
    k6CpuAvgPct: s.k6CpuAvgPct,
    k6CpuPeakPct: s.k6CpuPeakPct,
    k6RssPeakBytes: big(s.k6RssPeakBytes),
    hostCpuAvgPct: s.hostCpuAvgPct,
    latencyStddevMs: s.latencyStddevMs,
    gcCollectionsPerSec: s.gcCollectionsPerSec,
    gcPauseAvgMs: s.gcPauseAvgMs,
    gcPauseMaxMs: s.gcPauseMaxMs,
    k6Requests: k6Requests === null ? null : BigInt(k6Requests),
    windowStart: new Date((s.windowStart ?? 0) * 1000),
    windowEnd: new Date((s.windowEnd ?? 0) * 1000),
    windowSeconds: s.measuredSeconds,
    histogram: s.histogram,
    dataSentBytes: BigInt(Math.round(s.dataSent)),
    dataReceivedBytes: BigInt(Math.round(s.dataReceived)),
    // Left out when null: the Json column stays SQL NULL (Prisma refuses a plain null there).
    ...(s.drift === null ? {} : { drift: s.drift as never }),
  };
}
