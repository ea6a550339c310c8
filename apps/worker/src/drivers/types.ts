import type { CatalogEntry } from "@perflab/contracts/server-catalog";

export type DriverId = "local" | "docker";

/** Resource limits asked for by the cell; drivers that cannot enforce them record none. */
export type CellLimits = { cpus?: number; memoryMb?: number; cpuset?: string };

export type StartRequest = {
  server: CatalogEntry;
  cellId: string;
  runId?: string;
  port: number;
  env: Record<string, string>;
  limits?: CellLimits;
};

export type ExitInfo = {
  exitCode: number | null;
  signal: string | null;
  oomKilled: boolean;
};

/** One resource reading of the server, taken by whichever mechanism the driver owns. */
export type ServerResources = { cpuSeconds: number; rssBytes: number };

export interface RunningServer {
  readonly startedAt: number;
  /** Limits actually applied (after capping to the machine), or null when the driver applies none. */
  readonly appliedLimits?: { cpus: number; memoryBytes: number; cpuset: string | null } | null;
  /** What ran: the image's tag for containers… */
  readonly image?: string | null;
  /** …and its content id (sha256:…), which names exactly the bytes that ran. */
  readonly imageId?: string | null;
  /** Resolves when the server exits by itself or is stopped. */
  readonly exited: Promise<ExitInfo>;
  /** Cumulative CPU seconds and current RSS of everything the server runs (all its processes). */
  resources(): Promise<ServerResources | null>;
  /** SIGTERM, then SIGKILL after graceMs. */
  stop(graceMs: number): Promise<ExitInfo>;
  logTail(): string;
}

/** Nothing outside drivers/ knows whether a server is a container or a process. */
export interface Driver {
  readonly id: DriverId;
  start(request: StartRequest): Promise<RunningServer>;
}
