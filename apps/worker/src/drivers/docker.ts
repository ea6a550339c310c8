import { randomUUID } from "node:crypto";
import os from "node:os";
import { type CatalogEntry, serverImageTag } from "@perflab/catalog";
import Docker from "dockerode";
import { requireImage } from "./attached.ts";
import { runningContainer } from "./docker-container.ts";
import {
  isStatus,
  LABEL_CELL,
  LABEL_INSTANCE,
  LABEL_OWNER,
  LABEL_ROLE,
  LABEL_RUN,
  LABEL_SERVER,
  requireRegisteredImage,
} from "./docker-engine.ts";
import { hostOomKills } from "./docker-exit.ts";
import { cpusetFor, type EngineCapacity, type ResolvedLimits, resolveLimits } from "./docker-limits.ts";
import { LogTail } from "./local.ts";
import { OWNER_ENV, ownerAlive, ownerMarker, parseOwner } from "./orphans.ts";
import { engineFingerprint, enginePorts, watchServer } from "./probe.ts";
import type { Driver, HostFingerprint, RunningServer, ServerObserver, StartRequest } from "./types.ts";

export type DockerStartRequest = StartRequest;

/**
 * Whether a labelled container belongs to a worker of this host that is gone: its pid is dead or
 * now another process (a different start time), or its pid is ours but it was made by an earlier
 * process (a restarted container worker is pid 1 again).
 */
export function isOrphan(
  labels: Record<string, string>,
  self: { hostId: string; pid: number; instance: string },
  alive: (pid: number, start: string | null) => boolean,
): boolean {
  const owner = parseOwner(labels[LABEL_OWNER] ?? "");
  if (!owner || owner.hostId !== self.hostId) return false;
  if (owner.pid === self.pid) return labels[LABEL_INSTANCE] !== self.instance;
  return !alive(owner.pid, owner.start);
}

export type DockerDriverOptions = {
  /** Defaults to DOCKER_HOST (unix, tcp or ssh) or the local socket, like the docker CLI. */
  docker?: Docker;
  hostId?: string;
  /** Pins the server to the first ceil(cpus) CPUs besides the CPU quota. */
  cpuset?: boolean;
  pidsLimit?: number;
  /** A read-only root with a writable /tmp; runtimes that write elsewhere need it off. */
  readonlyRootfs?: boolean;
  tmpfsSize?: string;
  imageFor?: (server: CatalogEntry) => Promise<string> | string;
  /**
   * The engine runs on another machine (see engineIsLocal): the worker cannot reach a container's
   * loopback, so each server gets a probe container there (the fixtures image's /probe) that picks
   * its port and reports its health, /debug/runtime and that machine's CPU.
   */
  remote?: { probeImage: () => Promise<string> | string };
  /**
   * How long stop() waits for the engine's report of the exit once the container was stopped
   * (default 10 s) before asking the engine for the container's state instead.
   */
  exitTimeoutMs?: number;
};

/** `limits` are those applied after capping to the engine's machine: the ones to record on the cell. */
export type DockerRunningServer = RunningServer & {
  readonly containerId: string;
  readonly limits: ResolvedLimits;
};

export type DockerDriver = Omit<Driver, "start"> & {
  readonly docker: Docker;
  /** This driver's LABEL_INSTANCE: containers made with it are this worker's (see isOrphan). */
  readonly instance: string;
  /** Whether the engine is on another machine (servers are watched through a probe there). */
  readonly remote: boolean;
  start(request: DockerStartRequest): Promise<DockerRunningServer>;
  /** Removes containers left by dead workers of this host; returns the cells they ran. */
  removeOrphans(): Promise<string[]>;
  capacity(): Promise<EngineCapacity>;
};

/** A container per cell on a local or remote engine, with host networking and the cell's limits. */
export function createDockerDriver(options: DockerDriverOptions = {}): DockerDriver {
  const docker = options.docker ?? new Docker();
  const hostId = options.hostId ?? os.hostname();
  const instance = randomUUID();
  type EngineInfo = Parameters<typeof engineFingerprint>[0];
  let info: Promise<EngineInfo> | null = null;
  const engineInfo = () => {
    info ??= docker.info() as Promise<EngineInfo>;
    info.catch(() => {
      info = null;
    });
    return info;
  };
  const engine: Engine = {
    docker,
    hostId,
    instance,
    options,
    imageFor: options.imageFor ?? serverImageTag,
    // An engine on a unix socket runs on this kernel: its OOM kills show in our /proc/vmstat.
    localEngine: Boolean((docker.modem as { socketPath?: string }).socketPath),
    info: engineInfo,
    capacity: async () => {
      const { NCPU, MemTotal } = await engineInfo();
      return { cpus: NCPU, memoryBytes: MemTotal };
    },
  };
  return {
    id: "docker",
    docker,
    instance,
    capacity: engine.capacity,
    remote: Boolean(options.remote),
    start: (request) => startServer(engine, request),
    removeOrphans: () => removeOrphans(docker, { hostId, pid: process.pid, instance }),
  };
}

type Engine = {
  docker: Docker;
  hostId: string;
  instance: string;
  options: DockerDriverOptions;
  imageFor: (server: CatalogEntry) => Promise<string> | string;
  localEngine: boolean;
  info: () => Promise<Parameters<typeof engineFingerprint>[0]>;
  capacity: () => Promise<EngineCapacity>;
};

async function startServer(engine: Engine, request: DockerStartRequest): Promise<DockerRunningServer> {
  const { docker, options } = engine;
  const { server, cellId, env } = request;
  const image = await engine.imageFor(server);
  const imageId =
    server.image && image === server.image
      ? await requireRegisteredImage(docker, image, server.base ?? server.name, Boolean(options.remote))
      : await requireImage(
          docker,
          image,
          `${server.base ?? server.name}${options.remote ? " (DOCKER_HOST set to this engine)" : ""}`,
        );
  const host = await engine.capacity();
  const limits = resolveLimits(request.limits, host);
  const owner = env[OWNER_ENV] ?? ownerMarker(engine.hostId);
  const labels = {
    [LABEL_CELL]: cellId,
    ...(request.runId ? { [LABEL_RUN]: request.runId } : {}),
    [LABEL_SERVER]: server.name,
    [LABEL_OWNER]: owner,
    [LABEL_INSTANCE]: engine.instance,
  };
  const remote = options.remote ? await watchOnEngine(engine, options.remote, server, labels) : null;
  const port = remote?.port ?? request.port;
  const cpuset = limits.cpuset ?? (options.cpuset ? cpusetFor(limits.cpus, host.cpus) : null);
  const container = await createServerContainer(engine, {
    request,
    image,
    port,
    labels,
    limits,
    cpuset,
  }).catch(async (error) => {
    await remote?.observer.close();
    throw error;
  });
  // containerd (cgroup v1) drops a container's OOM event when the container is deleted before its
  // OOM watcher runs (seen on a loaded host): the engine then reports a plain SIGKILL.
  const oomKillsBefore = engine.localEngine ? await hostOomKills() : null;
  const tail = new LogTail();
  // Cold start includes the engine setting up the container, as a user of the image would see it.
  const startedAt = Date.now();
  try {
    await container.start();
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    await remote?.observer.close();
    throw error;
  }
  const running = runningContainer({
    docker,
    container,
    tail,
    oomKillsBefore,
    localEngine: engine.localEngine,
    exitTimeoutMs: options.exitTimeoutMs,
    observer: remote?.observer ?? null,
  });
  return {
    ...running,
    containerId: container.id,
    port,
    ...(remote ? { observer: remote.observer, machine: remote.machine } : {}),
    limits,
    appliedLimits: { ...limits, cpuset },
    image,
    imageId,
    startedAt,
  };
}

/** A port free on the engine's machine, and a watcher there polling it before the server starts. */
async function watchOnEngine(
  engine: Engine,
  remote: NonNullable<DockerDriverOptions["remote"]>,
  server: CatalogEntry,
  labels: Record<string, string>,
): Promise<{
  port: number;
  observer: ServerObserver & { cpuModel: string | null };
  machine: HostFingerprint;
}> {
  const probe = {
    docker: engine.docker,
    image: await remote.probeImage(),
    labels: { ...labels, [LABEL_ROLE]: "probe" },
  };
  const [port] = (await enginePorts(probe, 1)) as [number];
  const observer = await watchServer(probe, {
    mcp: `http://127.0.0.1:${port}${server.mcpPath}`,
    runtime: `http://127.0.0.1:${port}/debug/runtime`,
  });
  try {
    return { port, observer, machine: engineFingerprint(await engine.info(), observer.cpuModel) };
  } catch (error) {
    await observer.close();
    throw error;
  }
}

function createServerContainer(
  engine: Engine,
  spec: {
    request: DockerStartRequest;
    image: string;
    port: number;
    labels: Record<string, string>;
    limits: ResolvedLimits;
    cpuset: string | null;
  },
): Promise<Docker.Container> {
  const { options } = engine;
  const { request, image, port, limits } = spec;
  const { server } = request;
  const containerEnv = { ...server.start.env, ...request.env, PORT: String(port) };
  return engine.docker.createContainer({
    name: `perflab-${request.cellId}-${Date.now().toString(36)}`,
    Image: image,
    Env: Object.entries(containerEnv).map(([k, v]) => `${k}=${v}`),
    Labels: spec.labels,
    StopSignal: "SIGTERM",
    HostConfig: {
      // No NAT or bridge in the measured path: the server listens on the host's 127.0.0.1.
      NetworkMode: "host",
      NanoCpus: Math.round(limits.cpus * 1e9),
      // The cell's own cpuset, or (PERFLAB_DOCKER_CPUSET=1) the first CPUs its quota covers.
      ...(spec.cpuset ? { CpusetCpus: spec.cpuset } : {}),
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      PidsLimit: options.pidsLimit ?? 4096,
      SecurityOpt: ["no-new-privileges"],
      CapDrop: ["ALL"],
      // Only what the server's manifest says its runtime needs comes back (ZServerContainer).
      ...(server.container?.capabilities.length ? { CapAdd: [...server.container.capabilities] } : {}),
      ReadonlyRootfs: server.container?.writableRoot ? false : (options.readonlyRootfs ?? true),
      Tmpfs: { "/tmp": `rw,nosuid,nodev,size=${options.tmpfsSize ?? "256m"}` },
      RestartPolicy: { Name: "no" },
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "1" } },
    },
  });
}

/** Removes containers left by dead workers of this host; returns the cells they ran. */
async function removeOrphans(
  docker: Docker,
  self: { hostId: string; pid: number; instance: string },
): Promise<string[]> {
  // Cells' servers, k6 and probes, and the fixture backends of a remote engine.
  const containers = await docker.listContainers({ all: true, filters: { label: [LABEL_OWNER] } });
  const cells = new Set<string>();
  for (const info of containers) {
    if (!isOrphan(info.Labels, self, ownerAlive)) continue;
    await docker
      .getContainer(info.Id)
      .remove({ force: true, v: true })
      .catch((error) => {
        if (!isStatus(error, 404, 409)) throw error;
      });
    const cell = info.Labels[LABEL_CELL];
    if (cell) cells.add(cell);
  }
  return [...cells];
}
