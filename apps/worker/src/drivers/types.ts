import type { CatalogEntry } from "@perflab/catalog";
import type { DriverId } from "@perflab/contracts";

export type { DriverId };

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
  /**
   * Set by stop(): the server had already exited when perflab asked it to stop, though its exit
   * was not reported yet (an engine reports a container's exit after its logs and an inspect).
   */
  beforeStop?: boolean;
};

/**
 * One resource reading of the server, taken by whichever mechanism the driver owns. `at` (ms since
 * the epoch) is when the reading was taken, when the source says so and it differs from when it was
 * asked for: an engine answers a stats request with its collector's next sample, up to a second later.
 */
export type ServerResources = {
  cpuSeconds: number;
  rssBytes: number;
  at?: number;
  /** Open file descriptors, where the driver can read them (a local process group). */
  fds?: number | null;
};

/** The machine a cell was measured on, as recorded on the cell. */
export type HostFingerprint = {
  hostId: string;
  hostname: string;
  cpuModel: string;
  cores: number;
  kernel: string;
  arch: string;
  memoryBytes: number;
};

/**
 * How the worker sees a server it cannot reach itself (a container on another machine's loopback):
 * health, /debug/runtime and the machine's CPU, read there and reported back.
 */
export interface ServerObserver {
  /** The time (worker's clock) the server first answered an MCP initialize. */
  waitHealthy(input: { timeoutMs: number; exited: Promise<unknown> }): Promise<number>;
  /** /debug/runtime as first read after health, or null. */
  firstRuntime(): Promise<unknown>;
  /** The latest /debug/runtime reading (undefined when there is none). */
  runtime(): Promise<unknown>;
  /** The latest busy and total jiffies of the server's machine. */
  hostCpu(): Promise<{ busy: number; total: number } | null>;
  close(): Promise<void>;
}

export interface RunningServer {
  readonly startedAt: number;
  /** The port the server listens on, when the driver chose it (a remote engine's free port). */
  readonly port?: number;
  /** Set when the server runs where the worker cannot reach it: health and runtime come through it. */
  readonly observer?: ServerObserver;
  /** The machine the server runs on, when it is not the worker's. */
  readonly machine?: HostFingerprint;
  /** Limits actually applied (after capping to the machine), or null when the driver applies none. */
  readonly appliedLimits?: { cpus: number; memoryBytes: number; cpuset: string | null } | null;
  /** What ran: the image's tag for containers… */
  readonly image?: string | null;
  /** …and its content id (sha256:…), which names exactly the bytes that ran. */
  readonly imageId?: string | null;
  /** Resolves when the server exits by itself or is stopped. */
  readonly exited: Promise<ExitInfo>;
  /**
   * Cumulative CPU seconds and current RSS of everything the server runs (all its processes). With
   * `notBefore` (ms since the epoch), a reading taken at or after that moment, even if it takes a
   * moment longer (an engine's stats stream may hold a sample up to a second old).
   */
  resources(options?: { notBefore?: number }): Promise<ServerResources | null>;
  /** SIGTERM, then SIGKILL after graceMs. */
  stop(graceMs: number): Promise<ExitInfo>;
  logTail(): string;
}

/** Nothing outside drivers/ knows whether a server is a container or a process. */
export interface Driver {
  readonly id: DriverId;
  /** Servers run on another machine (a remote Docker engine): k6 and fixtures must run there too. */
  readonly remote?: boolean;
  start(request: StartRequest): Promise<RunningServer>;
}
