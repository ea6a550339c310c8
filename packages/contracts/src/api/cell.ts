import { z } from "zod";
import { ZCellStatus } from "../statuses.ts";
import { isoDate } from "./run.ts";
import { ZStormFigures } from "./storm.ts";

export const ZLatencyDto = z.object({
  avgMs: z.number().nullable(),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  p999: z.number().nullable(),
});

export const ZDriftMeasure = z.object({
  first: z.number().nullable().describe("Over the first tenth of the measured window."),
  last: z.number().nullable().describe("Over the last tenth."),
  changePct: z.number().nullable().describe("(last − first) ÷ first, in percent."),
});

/** A long cell's drift: the last tenth of the measured window against the first. */
export const ZDrift = z.object({
  tenthSeconds: z.number(),
  opsRps: ZDriftMeasure,
  p99Ms: ZDriftMeasure,
  rssBytes: ZDriftMeasure.extend({
    slopePerHour: z
      .number()
      .nullable()
      .describe("Least-squares trend of server RSS over the window, bytes per hour."),
  }),
});

/**
 * The share of a cell's measured operations that failed, in percent: errors per tool call (an
 * http-route cell's GET), not per HTTP request: a call in a session of its own is four requests,
 * which would make the same failures look four times rarer. A failed session setup counts as a
 * failed call (at most 100 %). Per request for a cell without operations (an uploaded script's).
 */
export function failedCallsPct(s: { requests: number; errors: number; ops: number }): number | null {
  if (s.ops > 0) return Math.min(100, (s.errors * 100) / s.ops);
  return s.requests > 0 ? (s.errors * 100) / s.requests : null;
}

export const ZCellSummaryDto = z.object({
  requests: z.number(),
  errors: z.number().describe("Failed operations, timeouts not included."),
  timeouts: z
    .number()
    .nullable()
    .optional()
    .describe(
      "Requests that hit the client's timeout (the matrix's timeoutMs, k6's 60 s by default; k6 error_code 1050), counted apart from errors; null where the source cannot tell them apart (an uploaded k6 summary); absent in reports frozen before.",
    ),
  ops: z.number(),
  httpRps: z.number(),
  opsRps: z.number(),
  requestsPerOp: z.number().nullable(),
  latency: ZLatencyDto,
  operations: z.unknown(),
  cpuAvgPct: z.number().nullable(),
  cpuPeakPct: z.number().nullable(),
  rssAvgBytes: z.number().nullable(),
  rssPeakBytes: z.number().nullable(),
  k6CpuAvgPct: z.number().nullable(),
  k6CpuPeakPct: z.number().nullable(),
  k6RssPeakBytes: z.number().nullable(),
  /** Open model: calls k6 dropped for want of a free VU in the measured window; null for the closed model. */
  droppedCalls: z.number().nullable(),
  /** The last tenth of the measured window against the first; null under 20 s (and before drift existed). */
  drift: ZDrift.nullable(),
  windowSeconds: z.number(),
  /** The figures below are absent in reports frozen before they existed. */
  latencyStddevMs: z
    .number()
    .nullable()
    .optional()
    .describe("Standard deviation of the measured operations' latency (ms), from the merged histogram."),
  rpsPerMb: z
    .number()
    .nullable()
    .optional()
    .describe(
      "HTTP requests per second per MB of the server's mean RSS over the measured window (rpsPerMb()).",
    ),
  gcCollectionsPerSec: z
    .number()
    .nullable()
    .optional()
    .describe(
      "Garbage collections per second of the server's runtime over the measured window (/debug/runtime gc_count); null where the runtime does not report them (Bun, uploads); 0 for Rust.",
    ),
  gcPauseAvgMs: z
    .number()
    .nullable()
    .optional()
    .describe("GC pause time per collection (ms): the growth of gc_pause_total_ms over that of gc_count."),
  gcPauseMaxMs: z
    .number()
    .nullable()
    .optional()
    .describe("The longest single GC pause of the measured window (ms), from the numbered gc_pauses_recent."),
  sessionDropPct: z
    .number()
    .nullable()
    .optional()
    .describe(
      "MCP sessions opened in the measured window (initialize answered) that the client did not end with a successful DELETE (the server dropped the session, a 404, or a request in it failed), in % of those opened (sessionDropPct()); null where the client ends no session in the window (sessions held for the whole test, stateless servers).",
    ),
  storm: ZStormFigures.nullable()
    .optional()
    .describe(
      "A connection-storm cell's figures per level: streams established, failed, dropped, time to establish and to the first event, the server's RSS and open descriptors while the level was held, and RSS per open stream; null for other scenarios.",
    ),
});

/**
 * Requests per second per MB of memory, the memory-efficiency figure of the 15-server study:
 * HTTP requests per second over the server's mean RSS in MB (10^6 bytes) over the measured window;
 * null without RSS (a registered endpoint, an upload).
 */
/**
 * Sessions dropped in % of those opened, from a summary's per-operation counts (its `operations`):
 * opened = `initialize` requests answered, ended = `DELETE` requests answered (k6's own check of
 * each). Every request of a k6 iteration carries that iteration's phase, so a session's initialize
 * and DELETE fall in the same window. Null without an `initialize` or a `DELETE` in the window.
 */
export function sessionDropPct(operations: unknown): number | null {
  const ops = Array.isArray(operations)
    ? (operations as { method?: unknown; count?: unknown; errors?: unknown }[])
    : [];
  const answered = (method: string) => {
    const of = ops.filter((o) => o.method === method);
    if (of.length === 0) return null;
    return of.reduce((n, o) => n + Number(o.count ?? 0) - Number(o.errors ?? 0), 0);
  };
  const opened = answered("initialize");
  const ended = answered("DELETE");
  if (opened === null || ended === null || opened <= 0) return null;
  return (Math.max(0, opened - ended) * 100) / opened;
}

export function rpsPerMb(s: { httpRps: number; rssAvgBytes: number | null }): number | null {
  return s.rssAvgBytes !== null && s.rssAvgBytes > 0 ? s.httpRps / (s.rssAvgBytes / 1e6) : null;
}

export const ZCellDto = z.object({
  id: z.string(),
  index: z.number().int(),
  serverName: z.string(),
  scenario: z.string(),
  /** Closed model: the level's VUs; null for an open-model level. */
  vus: z.number().int().nullable(),
  /** Open model: tool calls started per second; null for a closed-model level. */
  rate: z.number().int().nullable(),
  /** Open model: the VUs k6 may use to keep the rate. */
  maxVus: z.number().int().nullable(),
  params: z.record(z.string(), z.unknown()),
  round: z.number().int(),
  status: ZCellStatus,
  /** Last stage the worker reported live (building, starting, load...); not stored. */
  stage: z.string().nullable(),
  driver: z.string(),
  /**
   * What the driver enforced: CPU quota, memory, and the CPUs the container was pinned to (if any).
   * Null for a plain process, and until the server has started (the run's spec keeps what was asked).
   */
  limits: z.object({ cpus: z.number(), memoryMb: z.number(), cpuset: z.string().nullable() }).nullable(),
  /** Container image tag and content id (sha256:…), when the cell ran in a container. */
  image: z.string().nullable(),
  imageId: z.string().nullable(),
  runtimeVersion: z
    .string()
    .nullable()
    .describe(
      "The runtime's own version as the server reported it at start (`runtime.version` of /debug/runtime: go1.26.8, v20.20.2, 3.11.7), beside the manifest's `runtime`; null for uploads and servers that did not say.",
    ),
  idleRssBytes: z.number().nullable(),
  unmeasured: z
    .array(z.enum(["cpu", "rss"]))
    .optional()
    .describe(
      "Metrics this cell's server cannot have: a registered endpoint runs outside perflab, so no CPU or RSS (null in the summary, not zero).",
    ),
  heldSessions: z
    .number()
    .int()
    .nullable()
    .describe(
      "MCP sessions the cell held open: VUs × sessionsPerVu; null for a new session per call and the open model.",
    ),
  rssPerSessionBytes: z
    .number()
    .nullable()
    .describe(
      "(mean server RSS of the measured window − idle RSS) ÷ heldSessions, for workloads that hold sessions (sessionsPerVu or thinkMs set).",
    ),
  parallelism: z.unknown(),
  durationSeconds: z.number().int(),
  warmupSeconds: z.number().int(),
  k6Version: z.string().nullable(),
  hostFingerprint: z.unknown(),
  coldStartMs: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  exitSignal: z.string().nullable(),
  oomKilled: z.boolean(),
  k6Saturated: z.boolean(),
  otherCpuPct: z
    .number()
    .nullable()
    .describe(
      "CPU the machine spent on anything but the server and k6 while the cell measured, in % of one core (machine CPU × cores − server − k6); null where perflab cannot tell (the docker driver; a tool or route that calls the fixtures, whose CPU is the cell's but not its server's) or before the cell has a summary.",
    ),
  machineBusy: z
    .boolean()
    .describe(
      "Other work took at least a quarter of the machine while the cell measured (otherCpuPct ≥ 25 × cores): the server and k6 competed with it.",
    ),
  warmingUp: z
    .boolean()
    .describe(
      "The server was still getting faster while the cell measured (a JIT compiling, caches filling): at a closed-model level with a window of 20 s or more, the last tenth of the window made at least 25 % more calls per second than the first (summary.drift.opsRps). Queue it with a longer warm-up.",
    ),
  error: z.string().nullable(),
  logTail: z.string().nullable(),
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  summary: ZCellSummaryDto.nullable(),
});
