import type { TLivePoint, TMatrixSpec } from "@perflab/contracts";

/** Shapes sent to the browser and the API: dates as ISO strings, 64-bit counters as numbers. */

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled" | "partial";
export type CellStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

export const terminalRunStatuses: readonly RunStatus[] = ["succeeded", "failed", "cancelled", "partial"];
export const terminalCellStatuses: readonly CellStatus[] = ["succeeded", "failed", "cancelled"];

export type RunDto = {
  id: string;
  name: string;
  source: "ui" | "api";
  status: RunStatus;
  spec: TMatrixSpec;
  error: string | null;
  cellsTotal: number;
  cellsDone: number;
  cellsFailed: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

export type RunListItemDto = Pick<
  RunDto,
  | "id"
  | "name"
  | "source"
  | "status"
  | "cellsTotal"
  | "cellsDone"
  | "cellsFailed"
  | "createdAt"
  | "finishedAt"
> & { servers: string[] };

export type LatencyDto = {
  avgMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
};

export type CellSummaryDto = {
  requests: number;
  errors: number;
  ops: number;
  httpRps: number;
  opsRps: number;
  requestsPerOp: number | null;
  latency: LatencyDto;
  operations: unknown;
  cpuAvgPct: number | null;
  cpuPeakPct: number | null;
  rssAvgBytes: number | null;
  rssPeakBytes: number | null;
  k6CpuAvgPct: number | null;
  k6CpuPeakPct: number | null;
  k6RssPeakBytes: number | null;
  windowSeconds: number;
};

export type CellDto = {
  id: string;
  index: number;
  serverName: string;
  scenario: string;
  vus: number | null;
  params: Record<string, unknown>;
  round: number;
  status: CellStatus;
  /** Last stage the worker reported live (building, starting, load...); not stored. */
  stage: string | null;
  driver: string;
  /** Limits the driver enforced (null for a plain process). */
  limits: { cpus: number; memoryMb: number } | null;
  /** Container image tag and content id (sha256:…), when the cell ran in a container. */
  image: string | null;
  imageId: string | null;
  idleRssBytes: number | null;
  parallelism: unknown;
  durationSeconds: number;
  warmupSeconds: number;
  k6Version: string | null;
  hostFingerprint: unknown;
  coldStartMs: number | null;
  exitCode: number | null;
  exitSignal: string | null;
  oomKilled: boolean;
  k6Saturated: boolean;
  error: string | null;
  logTail: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  summary: CellSummaryDto | null;
};

/** One second of a cell, as stored or as published live (the same shape either way). */
export type PointDto = TLivePoint;

export type RunSnapshotEvent = {
  type: "snapshot";
  run: RunDto;
  cells: CellDto[];
  points: Record<string, PointDto[]>;
};

export type CreatedRunDto = {
  runId: string;
  cells: { id: string; index: number; serverName: string; scenario: string; vus: number; round: number }[];
};
