import { heldSessions, rssPerSession, scenarioModule } from "@perflab/contracts";
import { opsPerCpuSecond } from "@perflab/metrics/stats";
import { stringify } from "csv-stringify/sync";
import { cellRoute, cellSession, cellTool } from "../lib/labels";
import type { ReportCellDto } from "../lib/report-dto";

type Host = { hostId?: unknown; hostname?: unknown; cpuModel?: unknown; cores?: unknown; kernel?: unknown };
type Build = { runtime?: unknown; sdk?: { name?: unknown; version?: unknown } | null };

const text = (value: unknown) => (typeof value === "string" ? value : null);
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
const mb = (bytes: number | null | undefined) => (bytes == null ? null : bytes / (1024 * 1024));

/** One column: its header and how to read it off a cell. Null is an empty field. */
type Column = [header: string, value: (cell: ReportCellDto) => string | number | boolean | null];

/**
 * The columns of a run's CSV: one row per cell in execution order, what a spreadsheet of the studies
 * held (the measured window only, as on the run page), and where and how each cell ran. Units are in
 * the headers; numbers are plain (no thousands separators), dates ISO 8601 UTC.
 */
const columns: Column[] = [
  ["run_id", () => null], // filled per run
  ["cell_index", (c) => c.index],
  ["cell_id", (c) => c.id],
  ["server", (c) => c.serverName],
  ["scenario", (c) => c.scenario],
  ["tool", (c) => cellTool(c)],
  // MCP cells hold sessions (per VU unless their params say otherwise); plain HTTP cells none.
  ["session", (c) => (scenarioModule(c.scenario)?.protocol === "mcp" ? (cellSession(c) ?? "per-vu") : null)],
  // The http-route scenario's route template ("/rest/users/{id}"); empty for MCP cells, as tool and
  // session are for it.
  ["route", (c) => cellRoute(c)],
  ["params_json", (c) => JSON.stringify(c.params ?? {})],
  ["vus", (c) => c.vus],
  // Open model: calls started per second and the VU pool; empty for a closed-model cell (and for
  // cells frozen in reports before the open model existed).
  ["rate_per_s", (c) => c.rate ?? null],
  ["max_vus", (c) => c.maxVus ?? null],
  ["round", (c) => c.round],
  ["status", (c) => c.status],
  ["driver", (c) => c.driver],
  ["limit_cpus", (c) => c.limits?.cpus ?? null],
  ["limit_memory_mb", (c) => c.limits?.memoryMb ?? null],
  ["limit_cpuset", (c) => c.limits?.cpuset ?? null],
  ["duration_s", (c) => c.durationSeconds],
  ["warmup_s", (c) => c.warmupSeconds],
  ["window_s", (c) => c.summary?.windowSeconds ?? null],
  ["requests", (c) => c.summary?.requests ?? null],
  ["errors", (c) => c.summary?.errors ?? null],
  ["ops", (c) => c.summary?.ops ?? null],
  ["http_rps", (c) => c.summary?.httpRps ?? null],
  ["ops_per_s", (c) => c.summary?.opsRps ?? null],
  ["requests_per_op", (c) => c.summary?.requestsPerOp ?? null],
  ["latency_avg_ms", (c) => c.summary?.latency.avgMs ?? null],
  ["latency_min_ms", (c) => c.summary?.latency.minMs ?? null],
  ["latency_p50_ms", (c) => c.summary?.latency.p50 ?? null],
  ["latency_p90_ms", (c) => c.summary?.latency.p90 ?? null],
  ["latency_p95_ms", (c) => c.summary?.latency.p95 ?? null],
  ["latency_p99_ms", (c) => c.summary?.latency.p99 ?? null],
  ["latency_p999_ms", (c) => c.summary?.latency.p999 ?? null],
  ["latency_max_ms", (c) => c.summary?.latency.maxMs ?? null],
  ["cpu_avg_pct", (c) => c.summary?.cpuAvgPct ?? null],
  ["cpu_peak_pct", (c) => c.summary?.cpuPeakPct ?? null],
  ["ops_per_cpu_s", (c) => (c.summary ? opsPerCpuSecond(c.summary) : null)],
  ["rss_avg_mb", (c) => mb(c.summary?.rssAvgBytes)],
  ["rss_peak_mb", (c) => mb(c.summary?.rssPeakBytes)],
  ["idle_rss_mb", (c) => mb(c.idleRssBytes)],
  ["cold_start_ms", (c) => c.coldStartMs],
  ["k6_cpu_avg_pct", (c) => c.summary?.k6CpuAvgPct ?? null],
  ["k6_cpu_peak_pct", (c) => c.summary?.k6CpuPeakPct ?? null],
  ["k6_saturated", (c) => c.k6Saturated],
  ["other_cpu_pct", (c) => c.otherCpuPct ?? null],
  ["machine_busy", (c) => c.machineBusy ?? false],
  ["warming_up", (c) => c.warmingUp ?? false],
  ["dropped_calls", (c) => c.summary?.droppedCalls ?? null],
  // The last tenth of the measured window against the first (windows of 20 s and more).
  ["drift_ops_change_pct", (c) => c.summary?.drift?.opsRps.changePct ?? null],
  ["drift_p99_change_pct", (c) => c.summary?.drift?.p99Ms.changePct ?? null],
  ["drift_rss_change_pct", (c) => c.summary?.drift?.rssBytes.changePct ?? null],
  [
    "drift_rss_mb_per_h",
    (c) => {
      const slope = c.summary?.drift?.rssBytes.slopePerHour;
      return slope === null || slope === undefined ? null : slope / 2 ** 20;
    },
  ],
  ["oom_killed", (c) => c.oomKilled],
  ["exit_code", (c) => c.exitCode],
  ["exit_signal", (c) => c.exitSignal],
  ["error", (c) => c.error],
  ["started_at", (c) => c.startedAt],
  ["finished_at", (c) => c.finishedAt],
  ["runtime", (c) => text((c.serverBuild as Build | null)?.runtime)],
  ["runtime_version", (c) => c.runtimeVersion ?? null],
  [
    "sdk",
    (c) => {
      const sdk = (c.serverBuild as Build | null)?.sdk;
      return text(sdk?.name) ? `${sdk!.name} ${text(sdk!.version) ?? ""}`.trim() : null;
    },
  ],
  ["image", (c) => c.image],
  ["image_id", (c) => c.imageId],
  ["parallelism_json", (c) => (c.parallelism == null ? null : JSON.stringify(c.parallelism))],
  ["k6_version", (c) => c.k6Version],
  ["host_id", (c) => text((c.hostFingerprint as Host | null)?.hostId)],
  ["hostname", (c) => text((c.hostFingerprint as Host | null)?.hostname)],
  ["cpu_model", (c) => text((c.hostFingerprint as Host | null)?.cpuModel)],
  ["cores", (c) => num((c.hostFingerprint as Host | null)?.cores)],
  ["kernel", (c) => text((c.hostFingerprint as Host | null)?.kernel)],
  // Workloads that hold sessions (sessions per VU, think time); added last so older columns keep their place.
  ["sessions_per_vu", (c) => num((c.params as { sessionsPerVu?: unknown }).sessionsPerVu)],
  ["think_ms", (c) => num((c.params as { thinkMs?: unknown }).thinkMs)],
  ["held_sessions", (c) => heldSessions(c.params, c.vus)],
  [
    "rss_per_session_kb",
    (c) => {
      const bytes = rssPerSession({
        params: c.params,
        vus: c.vus,
        idleRssBytes: c.idleRssBytes,
        rssAvgBytes: c.summary?.rssAvgBytes ?? null,
      });
      return bytes === null ? null : bytes / 1024;
    },
  ],
  // The studies' figures and the runtime's GC (null where the runtime reports none), added last.
  ["latency_stddev_ms", (c) => c.summary?.latencyStddevMs ?? null],
  ["rps_per_mb", (c) => c.summary?.rpsPerMb ?? null],
  ["gc_collections_per_s", (c) => c.summary?.gcCollectionsPerSec ?? null],
  ["gc_pause_avg_ms", (c) => c.summary?.gcPauseAvgMs ?? null],
  ["gc_pause_max_ms", (c) => c.summary?.gcPauseMaxMs ?? null],
  ["session_drop_pct", (c) => c.summary?.sessionDropPct ?? null],
  ["timeouts", (c) => c.summary?.timeouts ?? null],
  // A connection storm's figures per level (ZStormFigures: idle, then each level's streams, RSS,
  // descriptors and RSS per stream); empty for other scenarios.
  ["storm_json", (c) => (c.summary?.storm ? JSON.stringify(c.summary.storm) : null)],
];

export const CELLS_CSV_HEADERS = columns.map(([header]) => header);

/** A run's cells as CSV (RFC 4180: CRLF lines, fields quoted where needed, a UTF-8 BOM), header first. */
export function cellsCsv(runId: string, cells: ReportCellDto[]): string {
  const rows = cells.map((cell) =>
    columns.map(([header, value]) => {
      const v = header === "run_id" ? runId : value(cell);
      return v === null ? "" : v;
    }),
  );
  return stringify([CELLS_CSV_HEADERS, ...rows], {
    // A UTF-8 byte order mark, so Excel reads "µs" or "·" in a name as what they are.
    bom: true,
    record_delimiter: "windows",
    // A custom delimiter turns off quoting of line breaks inside fields: an error's bare "\n" must
    // not split its row.
    quote_record_delimiter: true,
    quoted_match: /[\r\n]/,
    // An error text beginning "=", "+", "-" or "@" is text, not a spreadsheet formula.
    escape_formulas: true,
    cast: { boolean: (v) => (v ? "true" : "false") },
  });
}

/** The download: `perflab-<what>.csv`, as an attachment a spreadsheet opens. */
export function csvResponse(body: string, filename: string, requestId: string): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
      "x-request-id": requestId,
    },
  });
}
