import type { TK6SummaryMetric, TUploadProvenance, TUploadQuery } from "@perflab/contracts";
import type { CellSummaryData } from "../cell-aggregator.ts";
import { createLatencyHistogram, encodeHistogram } from "../histogram.ts";
import { IngestError } from "./errors.ts";
import type { K6Summary } from "./k6-summary.ts";
import { pendingUploadSpec, storedUploadParams, type UploadRecord, uploadDecoderOptions } from "./upload.ts";

/** What the cell records as its k6 version: neither summary shape says it. */
export const K6_SUMMARY_VERSION = "unknown (k6 summary)";

/** The first of these metrics the summary has: the most specific (measured window, operations) first. */
function pick(summary: K6Summary, names: string[]): { name: string; metric: TK6SummaryMetric } | null {
  for (const name of names) {
    const metric = summary.metrics[name];
    if (metric) return { name, metric };
  }
  return null;
}

/** The metrics a summary's figures are read from: perflab's scripts keep phase and method submetrics. */
function summaryMetrics(summary: K6Summary, op: string) {
  const requests = pick(summary, ["http_reqs{phase:measure}", "http_reqs"]);
  if (!requests || requests.metric.values.count === undefined) {
    throw new IngestError(
      "The k6 summary has no request count: it needs the http_reqs metric, which k6 writes for any HTTP test.",
      "metrics.http_reqs",
      "is missing (or has no count)",
    );
  }
  const windowed = requests.name.includes("phase:measure");
  const scope = windowed ? "phase:measure," : "";
  return {
    requests,
    windowed,
    ops: pick(summary, [`http_reqs{${scope}method:${op}}`]),
    latency: pick(summary, [
      `http_req_duration{${scope}method:${op}}`,
      ...(windowed ? ["http_req_duration{phase:measure}"] : []),
      "http_req_duration",
    ]),
    failed: pick(summary, [windowed ? "http_req_failed{phase:measure}" : "http_req_failed"]),
  };
}

/**
 * A k6 summary as an uploaded run: its counts become the cell's summary, its figures are kept as
 * k6's (the spec's `upload.k6Summary`), and the lab's latency stays empty: k6's p(95) is not a
 * histogram and is never merged with one. Without a phase:measure submetric the counts cover the
 * whole test, warm-up included, at k6's own rate.
 */
export function summaryUploadRecord(
  meta: TUploadQuery,
  summary: K6Summary,
  bytes: number,
  compressed: boolean,
): UploadRecord {
  const { operationMethod } = uploadDecoderOptions(meta, summary.format);
  const picked = summaryMetrics(summary, operationMethod);
  const requests = picked.requests.metric.values.count!;
  if (meta.k6Requests !== undefined && meta.k6Requests !== requests) {
    throw new IngestError(
      `The k6 summary counts ${requests} requests (${picked.requests.name}) but k6Requests says ${meta.k6Requests}.`,
      "k6Requests",
      `does not match the summary's ${requests} requests`,
    );
  }
  const ops = picked.ops?.metric.values.count ?? 0;
  const rateOf = (count: number, metric: TK6SummaryMetric | undefined) =>
    picked.windowed ? count / meta.durationSec : (metric?.values.rate ?? count / meta.durationSec);
  const dropped = summary.metrics.dropped_iterations?.values.count;
  const cellSummary: CellSummaryData = {
    ...emptySummary(meta.durationSec),
    requests,
    errors: picked.failed?.metric.values.passes ?? 0,
    ops,
    httpRps: rateOf(requests, picked.requests.metric),
    opsRps: rateOf(ops, picked.ops?.metric),
    requestsPerOp: ops > 0 ? requests / ops : null,
    dataSent: summary.metrics.data_sent?.values.count ?? 0,
    dataReceived: summary.metrics.data_received?.values.count ?? 0,
    droppedCalls: meta.rate === undefined ? null : (dropped ?? meta.droppedCalls ?? null),
  };
  const provenance: TUploadProvenance = {
    format: summary.format,
    compressed,
    lacks: summaryLacks(picked),
    k6Summary: {
      latencyMetric: picked.latency?.name ?? null,
      requestsMetric: picked.requests.name,
      testRunDurationMs: summary.testRunDurationMs,
      metrics: summary.metrics,
    },
  };
  return shapeRecord(meta, summary, cellSummary, bytes, provenance);
}

function shapeRecord(
  meta: TUploadQuery,
  summary: K6Summary,
  cellSummary: CellSummaryData,
  bytes: number,
  provenance: TUploadProvenance,
): UploadRecord {
  const vusMax = summary.metrics.vus_max?.values.max ?? summary.metrics.vus_max?.values.value ?? 1;
  const loadLevel =
    meta.rate === undefined
      ? { vus: meta.vus ?? Math.max(1, Math.round(vusMax)) }
      : { rate: meta.rate, maxVus: meta.maxVus ?? Math.max(1, Math.round(vusMax)) };
  const pending = pendingUploadSpec(meta);
  const params = storedUploadParams(meta, meta.tool ?? null);
  // A summary has no clock reading: the test is placed as having just ended.
  const finishedMs = Date.now();
  const startedMs = finishedMs - (summary.testRunDurationMs ?? (meta.warmupSec + meta.durationSec) * 1000);
  const measureStartMs = startedMs + meta.warmupSec * 1000;
  return {
    name: pending.name,
    spec: {
      ...pending,
      loadLevels: [loadLevel],
      upload: { k6Version: K6_SUMMARY_VERSION, lines: null, bytes, ...provenance },
    },
    summary: {
      ...cellSummary,
      windowStart: measureStartMs / 1000,
      windowEnd: measureStartMs / 1000 + meta.durationSec,
    },
    loadLevel,
    params,
    droppedCalls: cellSummary.droppedCalls,
    k6Requests: meta.k6Requests ?? null,
    points: [],
    k6Version: K6_SUMMARY_VERSION,
    startedAt: new Date(startedMs),
    finishedAt: new Date(finishedMs),
    measureStartedAt: new Date(measureStartMs),
    measureEndedAt: new Date(measureStartMs + meta.durationSec * 1000),
    loadStartT: Math.floor(startedMs / 1000),
  };
}

/** What a summary cannot give, in the words the run page and the report show. */
function summaryLacks(picked: ReturnType<typeof summaryMetrics>): string[] {
  const stats = Object.keys(picked.latency?.metric.values ?? {}).filter(
    (k) => k === "med" || k.startsWith("p("),
  );
  return [
    "from a k6 summary: no per-second series",
    "no CPU or memory of the server",
    picked.latency
      ? `percentiles are k6's ${stats.join("/") || "(none)"} of ${picked.latency.name} only, not a histogram: a verdict or a cross-run comparison cannot use them`
      : "no latency: the summary has no http_req_duration",
    ...(picked.windowed ? [] : ["warm-up not excluded: the summary has no phase:measure submetric"]),
    ...(picked.ops ? [] : ["no MCP operations: counts and latency are of whole requests"]),
  ];
}

function emptySummary(measuredSeconds: number): CellSummaryData {
  const none = {
    count: 0,
    avgMs: null,
    minMs: null,
    maxMs: null,
    p50: null,
    p90: null,
    p95: null,
    p99: null,
    p999: null,
  };
  return {
    requests: 0,
    errors: 0,
    ops: 0,
    httpRps: 0,
    opsRps: 0,
    requestsPerOp: null,
    latency: none,
    operations: [],
    histogram: encodeHistogram(createLatencyHistogram()),
    measuredSeconds,
    windowStart: null,
    windowEnd: null,
    dataSent: 0,
    dataReceived: 0,
    cpuAvgPct: null,
    cpuPeakPct: null,
    rssAvgBytes: null,
    rssPeakBytes: null,
    k6CpuAvgPct: null,
    k6CpuPeakPct: null,
    k6RssPeakBytes: null,
    hostCpuAvgPct: null,
    droppedCalls: null,
    drift: null,
    timeouts: null,
    latencyStddevMs: null,
    gcCollectionsPerSec: null,
    gcPauseAvgMs: null,
    gcPauseMaxMs: null,
  };
}
