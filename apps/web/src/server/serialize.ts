import {
  heldSessions,
  needsFixtures,
  rpsPerMb,
  rssPerSession,
  runtimePointFields,
  sessionDropPct,
  type TMatrixSpec,
  type TRoundsDecision,
  type TRunListItem,
} from "@perflab/contracts";
import type { ApiToken, Cell, CellSummary, MetricPoint, MetricRollup, Run } from "@perflab/db";
import { type Drift, isMachineBusy, isWarmingUp, otherCpuPct, otherWorkMeasured } from "@perflab/metrics";
import type { CellDto, CellSummaryDto, PointDto, RunDto, RunListItemDto } from "../lib/dto";
import type { ReportCellDto } from "../lib/report-dto";

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const num = (value: bigint | number | null) => (value === null ? null : Number(value));

type RunToken = Pick<ApiToken, "id" | "name">;
const tokenOf = (token: RunToken | null) => (token ? { id: token.id, name: token.name } : null);

/** A run; `token` only when its token was loaded (a report's snapshot leaves it out). */
export function serializeRun(run: Run & { apiToken?: RunToken | null }): RunDto {
  return {
    id: run.id,
    name: run.name,
    source: run.source,
    status: run.status,
    spec: run.spec as TMatrixSpec,
    baselineRunId: run.baselineRunId,
    error: run.error,
    cellsTotal: run.cellsTotal,
    cellsDone: run.cellsDone,
    cellsFailed: run.cellsFailed,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    // Written by the worker from the contracts' ZRoundsDecision.
    rounds: (run.roundsDecision as TRoundsDecision | null) ?? null,
    ...(run.apiToken !== undefined ? { token: tokenOf(run.apiToken) } : {}),
  };
}

export function serializeRunListItem(
  run: Run & { apiToken: Pick<ApiToken, "name"> | null; _count: { cells: number } },
): RunListItemDto {
  const spec = run.spec as Partial<TMatrixSpec> | null;
  return {
    id: run.id,
    name: run.name,
    source: run.source,
    status: run.status,
    cellsTotal: run.cellsTotal,
    cellsDone: run.cellsDone,
    cellsFailed: run.cellsFailed,
    createdAt: run.createdAt.toISOString(),
    finishedAt: iso(run.finishedAt),
    servers: Array.isArray(spec?.servers) ? spec.servers : [],
    tokenName: run.apiToken?.name ?? null,
    // Counted with a filter: the cells that succeeded (see listRuns).
    cellsSucceeded: run._count.cells,
  };
}

/** A run as GET /api/v1/runs lists it for CI: status, counts, git fields and the run page path. */
export function serializeRunSummary(run: Run & { apiToken: RunToken | null }): TRunListItem {
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    source: run.source,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    cellsTotal: run.cellsTotal,
    cellsDone: run.cellsDone,
    cellsFailed: run.cellsFailed,
    git: { repo: run.gitRepo, branch: run.gitBranch, commit: run.gitCommit, pr: run.gitPr },
    token: tokenOf(run.apiToken),
    url: `/runs/${encodeURIComponent(run.id)}`,
  };
}

export function serializeSummary(summary: CellSummary): CellSummaryDto {
  return {
    requests: Number(summary.requests),
    errors: Number(summary.errors),
    timeouts: num(summary.timeouts),
    ops: Number(summary.ops),
    httpRps: summary.httpRps,
    opsRps: summary.opsRps,
    requestsPerOp: summary.requestsPerOp,
    latency: {
      avgMs: summary.latencyAvgMs,
      minMs: summary.latencyMinMs,
      maxMs: summary.latencyMaxMs,
      p50: summary.latencyP50Ms,
      p90: summary.latencyP90Ms,
      p95: summary.latencyP95Ms,
      p99: summary.latencyP99Ms,
      p999: summary.latencyP999Ms,
    },
    operations: summary.byOperation,
    cpuAvgPct: summary.cpuAvgPct,
    cpuPeakPct: summary.cpuPeakPct,
    rssAvgBytes: num(summary.rssAvgBytes),
    rssPeakBytes: num(summary.rssPeakBytes),
    k6CpuAvgPct: summary.k6CpuAvgPct,
    k6CpuPeakPct: summary.k6CpuPeakPct,
    k6RssPeakBytes: num(summary.k6RssPeakBytes),
    droppedCalls: num(summary.droppedCalls),
    drift: (summary.drift ?? null) as CellSummaryDto["drift"],
    windowSeconds: summary.windowSeconds,
    latencyStddevMs: summary.latencyStddevMs,
    rpsPerMb: rpsPerMb({ httpRps: summary.httpRps, rssAvgBytes: num(summary.rssAvgBytes) }),
    gcCollectionsPerSec: summary.gcCollectionsPerSec,
    gcPauseAvgMs: summary.gcPauseAvgMs,
    gcPauseMaxMs: summary.gcPauseMaxMs,
    sessionDropPct: sessionDropPct(summary.byOperation),
    storm: (summary.storm ?? null) as CellSummaryDto["storm"],
  };
}

/** Other work on the machine while the cell measured, where perflab can tell (`otherWorkMeasured`). */
function otherWork(cell: Cell & { summary?: CellSummary | null }) {
  const cores = (cell.hostFingerprint as { cores?: unknown } | null)?.cores;
  if (!cell.summary || typeof cores !== "number") return { otherCpuPct: null, machineBusy: false };
  const cpu = {
    k6CpuAvgPct: cell.summary.k6CpuAvgPct,
    serverCpuAvgPct: cell.summary.cpuAvgPct,
    hostCpuAvgPct: cell.summary.hostCpuAvgPct,
    cores,
    otherWorkMeasured: otherWorkMeasured(cell.driver, needsFixtures(cell.scenario, cell.params)),
  };
  return { otherCpuPct: otherCpuPct(cpu), machineBusy: isMachineBusy(cpu) };
}

/** A registered endpoint's cells say which metrics they cannot have (the worker records it). */
function unmeasuredOf(build: unknown): Pick<CellDto, "unmeasured"> {
  const unmeasured = (build as { unmeasured?: unknown } | null)?.unmeasured;
  return Array.isArray(unmeasured)
    ? { unmeasured: unmeasured.filter((m) => m === "cpu" || m === "rss") }
    : {};
}

export function serializeCell(cell: Cell & { summary?: CellSummary | null }): CellDto {
  const loadLevel = cell.loadLevel as { vus?: unknown; rate?: unknown; maxVus?: unknown } | null;
  const int = (v: unknown) => (typeof v === "number" ? v : null);
  return {
    id: cell.id,
    index: cell.index,
    serverName: cell.serverName,
    scenario: cell.scenario,
    vus: int(loadLevel?.vus),
    rate: int(loadLevel?.rate),
    maxVus: int(loadLevel?.maxVus),
    params: (cell.params ?? {}) as Record<string, unknown>,
    round: cell.round,
    status: cell.status,
    stage: null,
    driver: cell.driver,
    limits: appliedLimits(cell),
    image: ((cell.serverBuild as { image?: string | null } | null)?.image ?? null) || null,
    imageId: ((cell.serverBuild as { imageId?: string | null } | null)?.imageId ?? null) || null,
    runtimeVersion:
      ((cell.serverBuild as { runtimeVersion?: string | null } | null)?.runtimeVersion ?? null) || null,
    idleRssBytes: num(cell.idleRssBytes),
    ...unmeasuredOf(cell.serverBuild),
    heldSessions: heldSessions(cell.params, int(loadLevel?.vus)),
    rssPerSessionBytes: rssPerSession({
      params: cell.params,
      vus: int(loadLevel?.vus),
      idleRssBytes: num(cell.idleRssBytes),
      rssAvgBytes: num(cell.summary?.rssAvgBytes ?? null),
    }),
    parallelism: cell.parallelism ?? null,
    durationSeconds: cell.durationSeconds,
    warmupSeconds: cell.warmupSeconds,
    k6Version: cell.k6Version,
    hostFingerprint: cell.hostFingerprint,
    coldStartMs: cell.coldStartMs,
    exitCode: cell.exitCode,
    exitSignal: cell.exitSignal,
    oomKilled: cell.oomKilled,
    k6Saturated: cell.k6Saturated,
    ...otherWork(cell),
    warmingUp: isWarmingUp({
      drift: (cell.summary?.drift ?? null) as Drift | null,
      closedModel: typeof loadLevel?.vus === "number",
    }),
    error: cell.error,
    logTail: cell.logTail,
    startedAt: iso(cell.startedAt),
    finishedAt: iso(cell.finishedAt),
    summary: cell.summary ? serializeSummary(cell.summary) : null,
  };
}

/** A cell as a report freezes it and an export writes it: its DTO plus the server build it ran. */
export function serializeReportCell(cell: Cell & { summary?: CellSummary | null }): ReportCellDto {
  return { ...serializeCell(cell), serverBuild: cell.serverBuild ?? null };
}

type PointColumns = "t" | "second" | "phase" | "rps" | "errors" | "cpuPct" | "rssBytes" | "k6CpuPct";

/** The columns of a stored second (MetricPoint) or rollup bucket (MetricRollup) a point is read from. */
export type StoredPoint = Pick<MetricPoint, PointColumns | "latencyP50Ms" | "latencyP95Ms" | "latencyP99Ms"> &
  (Pick<MetricPoint, "runtime"> | Pick<MetricRollup, "seconds">);

/**
 * A cell's stored second or rollup bucket as the API sends it. A bucket's errors are per second,
 * like a second's (their mean); it keeps no runtime document, so it has no heap or GC pause.
 */
export function serializePoint(cellId: string, row: StoredPoint): PointDto {
  return {
    type: "point",
    cellId,
    t: row.t.getTime(),
    second: row.second,
    phase: row.phase,
    rps: row.rps,
    errors: "seconds" in row ? (row.seconds > 0 ? row.errors / row.seconds : 0) : row.errors,
    p50: row.latencyP50Ms,
    p95: row.latencyP95Ms,
    p99: row.latencyP99Ms,
    cpuPct: row.cpuPct,
    rssBytes: num(row.rssBytes),
    k6CpuPct: row.k6CpuPct,
    ...("runtime" in row ? runtimePointFields(row.runtime) : {}),
  };
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * The limits the driver enforced, or null. A cell is created with the limits the run asked for (the
 * worker reads them as its request) and the worker replaces them with the enforced ones, or none
 * for a plain process, in the same write that records the server's port. So without a port they
 * are still the request — of a cell not started yet, or that failed before its server started —
 * and are not reported as enforced; the run's spec keeps the request.
 */
export function appliedLimits(
  cell: Pick<Cell, "port" | "limits">,
): { cpus: number; memoryMb: number; cpuset: string | null } | null {
  if (cell.port === null) return null;
  const limits = cell.limits as { cpus?: unknown; memoryMb?: unknown; cpuset?: unknown } | null;
  if (!limits || typeof limits !== "object" || !finite(limits.cpus) || !finite(limits.memoryMb)) return null;
  return {
    cpus: limits.cpus,
    memoryMb: limits.memoryMb,
    cpuset: typeof limits.cpuset === "string" && limits.cpuset ? limits.cpuset : null,
  };
}
