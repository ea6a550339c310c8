// Cells and summaries for the comparison's and the verdict's unit tests.
import type { CellDto, CellStatus, CellSummaryDto } from "./dto";

export const summary = (opsRps: number, p99: number | null, rssPeakBytes: number | null): CellSummaryDto => ({
  requests: 0,
  errors: 0,
  ops: 0,
  httpRps: opsRps * 2,
  opsRps,
  requestsPerOp: 2,
  latency: { avgMs: 1, minMs: 0, maxMs: 9, p50: 1, p90: 2, p95: 3, p99, p999: 5 },
  operations: [],
  cpuAvgPct: null,
  cpuPeakPct: null,
  rssAvgBytes: null,
  rssPeakBytes,
  k6CpuAvgPct: null,
  k6CpuPeakPct: null,
  k6RssPeakBytes: null,
  droppedCalls: null,
  drift: null,
  windowSeconds: 10,
});

let index = 0;

/** Restarts the cells' indexes (and ids) at 0. */
export function resetCells(): void {
  index = 0;
}

export function cell(
  serverName: string,
  vus: number | null,
  round: number,
  result: CellSummaryDto | null,
  status: CellStatus = result ? "succeeded" : "failed",
  params: Record<string, unknown> = { tool: "echo", arguments: { message: "hi" } },
): CellDto {
  return {
    id: `c${index}`,
    index: index++,
    serverName,
    scenario: "mcp-tool-call",
    vus,
    rate: null,
    maxVus: null,
    params,
    round,
    status,
    stage: null,
    driver: "local",
    limits: null,
    image: null,
    imageId: null,
    runtimeVersion: null,
    idleRssBytes: null,
    heldSessions: null,
    rssPerSessionBytes: null,
    parallelism: null,
    durationSeconds: 10,
    warmupSeconds: 1,
    k6Version: null,
    hostFingerprint: null,
    coldStartMs: null,
    exitCode: null,
    exitSignal: null,
    oomKilled: false,
    k6Saturated: false,
    otherCpuPct: null,
    machineBusy: false,
    warmingUp: false,
    error: status === "failed" ? "boom" : null,
    logTail: null,
    startedAt: null,
    finishedAt: null,
    summary: result,
  };
}

/** An open-model cell: `rate` tool calls per second from a pool of VUs. */
export const openCell = (...[serverName, rate, round, result, status]: Parameters<typeof cell>): CellDto => ({
  ...cell(serverName, null, round, result, status),
  rate,
  maxVus: rate === null ? null : 20,
});
