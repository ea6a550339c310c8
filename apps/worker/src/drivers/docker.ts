import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import type { CatalogEntry } from "@perflab/contracts/server-catalog";
import Docker from "dockerode";
import { glob } from "tinyglobby";
import { requireImage } from "./attached.ts";
import { LogTail } from "./local.ts";
import { OWNER_ENV, ownerAlive, ownerMarker, parseOwner } from "./orphans.ts";
import { engineFingerprint, enginePorts, watchServer } from "./probe.ts";
import type {
  CellLimits,
  Driver,
  ExitInfo,
  HostFingerprint,
  RunningServer,
  ServerObserver,
  ServerResources,
  StartRequest,
} from "./types.ts";

export const LABEL_CELL = "perflab.cell";
export const LABEL_RUN = "perflab.run";
export const LABEL_SERVER = "perflab.server";
/** `<host id>:<worker pid>`, as in the local driver's process marker. */
export const LABEL_OWNER = "perflab.owner";
/** Random per worker process: tells a restarted worker that reuses its pid (pid 1 in a container) from itself. */
export const LABEL_INSTANCE = "perflab.instance";
/** What a container is to its cell or worker: k6, probe, or a fixture backend (the server's has none). */
export const LABEL_ROLE = "perflab.role";

export type DockerStartRequest = StartRequest;
export type EngineCapacity = { cpus: number; memoryBytes: number };
export type ResolvedLimits = { cpus: number; memoryBytes: number; cpuset: string | null };

export const DEFAULT_LIMITS = { cpus: 2, memoryMb: 2048 } as const;
const MB = 1024 * 1024;

/** The CPU ids of a cpuset list ("0-1,3" → [0, 1, 3]). */
export function cpusetIds(list: string): number[] {
  const ids = new Set<number>();
  for (const part of list.split(",")) {
    const [from, to = from] = part.split("-").map(Number);
    for (let id = from!; id <= to!; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * The cell's limits, defaulting to 2 vCPU / 2 GB and never more than the engine's machine has. A
 * cpuset must name CPUs the machine has; without a CPU count it also caps the quota to its size.
 */
export function resolveLimits(limits: CellLimits | undefined, capacity: EngineCapacity): ResolvedLimits {
  let cpus = Math.min(limits?.cpus ?? DEFAULT_LIMITS.cpus, capacity.cpus);
  let cpuset: string | null = null;
  if (limits?.cpuset) {
    const ids = cpusetIds(limits.cpuset);
    const missing = ids.filter((id) => id >= capacity.cpus);
    if (ids.length === 0 || missing.length > 0) {
      throw new Error(
        `cpuset "${limits.cpuset}" names CPUs the engine's machine does not have (it has CPUs 0-${capacity.cpus - 1})`,
      );
    }
    cpuset = limits.cpuset;
    cpus = Math.min(limits.cpus ?? Math.min(DEFAULT_LIMITS.cpus, ids.length), ids.length);
  }
  const memoryBytes = Math.min((limits?.memoryMb ?? DEFAULT_LIMITS.memoryMb) * MB, capacity.memoryBytes);
  return { cpus, memoryBytes: Math.floor(memoryBytes), cpuset };
}

/** First `count` CPUs as a cpuset ("0-1"), for runtimes that size pools from visible CPUs. */
export function cpusetFor(cpus: number, hostCpus: number): string {
  const count = Math.max(1, Math.min(hostCpus, Math.ceil(cpus)));
  return count === 1 ? "0" : `0-${count - 1}`;
}

type StatsSample = {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: { usage?: number; stats?: Record<string, number> };
};

/**
 * The container's memory as `docker stats` shows it (calculateMemUsageUnixNoCache in docker/cli):
 * the cgroup's usage minus its inactive file pages, `total_inactive_file` on cgroup v1 and
 * `inactive_file` on v2, each only when smaller than the usage. Active file pages and tmpfs stay
 * counted on both, so one server reads the same on a v1 and a v2 host.
 */
export function memoryFromStats(memory: { usage: number; stats?: Record<string, number> }): number {
  const { usage, stats = {} } = memory;
  const v1 = stats.total_inactive_file;
  if (v1 !== undefined && v1 < usage) return usage - v1;
  const v2 = stats.inactive_file ?? 0;
  return v2 < usage ? usage - v2 : usage;
}

/**
 * CPU seconds and resident memory (memoryFromStats) from one engine stats sample.
 * `at` is the sample's own time (`read`): the engine answers a one-shot request at once only when
 * its collector is idle, otherwise with the collector's next sample, up to a second later, and a CPU
 * rate is only right over the times the counters were read. A container that has stopped reports
 * no memory (usage 0, `read` 0001-01-01): no reading, rather than a 0 that would pass for one.
 */
export function resourcesFromStats(sample: StatsSample): ServerResources | null {
  const cpu = sample.cpu_stats?.cpu_usage?.total_usage;
  const usage = sample.memory_stats?.usage;
  if (cpu === undefined || usage === undefined || usage === 0) return null;
  const at = sample.read ? Date.parse(sample.read) : Number.NaN;
  return {
    cpuSeconds: cpu / 1e9,
    rssBytes: memoryFromStats({ usage, stats: sample.memory_stats?.stats }),
    ...(at > 0 ? { at } : {}),
  };
}

/** How long a one-shot stats request may take: the engine holds it up to a second by design. */
const STATS_REQUEST_MS = 5_000;

/**
 * A container's resources from the engine's stats stream: one subscription per container, the
 * latest sample kept. A stats *request* is held by the engine until its collector's next sample (up
 * to a second: seen on engine 20.10, API 1.41, even with one-shot), which would delay the sampler's
 * tick and date the reading a second late; from the stream each reading is there at once, at most a
 * second old, and carries the time the engine read it (`at`), over which the sampler takes rates.
 * Until the first sample arrives, a one-shot request answers. The stream ends with the container.
 */
export function watchStats(
  container: Docker.Container,
  options: {
    /** How long a one-shot request may take before the reading is given up (default 5 s). */
    requestTimeoutMs?: number;
  } = {},
): {
  latest: (options?: { notBefore?: number }) => Promise<ServerResources | null>;
  close: () => void;
} {
  const requestTimeoutMs = options.requestTimeoutMs ?? STATS_REQUEST_MS;
  let latest: ServerResources | null = null;
  let closed = false;
  let stream: NodeJS.ReadableStream | null = null;
  const opened = (container.stats({ stream: true }) as unknown as Promise<NodeJS.ReadableStream>)
    .then((s) => {
      stream = s;
      if (closed) return destroy(s);
      let buffered = "";
      s.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (!line) continue;
          try {
            latest = resourcesFromStats(JSON.parse(line) as StatsSample) ?? latest;
          } catch {
            // A torn line: the next sample comes within a second.
          }
        }
      });
      s.on("error", () => undefined);
    })
    .catch(() => undefined);
  const destroy = (s: NodeJS.ReadableStream) => (s as unknown as { destroy?: () => void }).destroy?.();
  return {
    async latest(options = {}) {
      const current = () =>
        latest && (options.notBefore === undefined || (latest.at ?? 0) >= options.notBefore) ? latest : null;
      if (current()) return latest;
      await Promise.race([opened, new Promise((r) => setTimeout(r, 200))]);
      if (current()) return latest;
      // A request: the engine answers with its collector's next sample, read after it was asked for.
      // Bounded: an engine that stops answering must not hold the sampler's tick, and with it the
      // sampler's stop at the end of the load.
      try {
        const sample = (await within(
          container.stats({ stream: false, "one-shot": true } as never) as unknown as Promise<StatsSample>,
          requestTimeoutMs,
        )) as StatsSample;
        return resourcesFromStats(sample);
      } catch {
        return null;
      }
    },
    close() {
      closed = true;
      if (stream) destroy(stream);
    },
  };
}

/** Docker reports a signal death as exit code 128 + signal number. */
export function exitInfoFromState(state: { ExitCode?: number; OOMKilled?: boolean }): ExitInfo {
  const code = state.ExitCode ?? null;
  let signal: string | null = null;
  if (code !== null && code > 128) {
    const entry = Object.entries(os.constants.signals).find(([, n]) => n === code - 128);
    signal = entry?.[0] ?? null;
  }
  return { exitCode: code, signal, oomKilled: state.OOMKilled === true };
}

/** How long a container's wait may keep failing while the engine cannot say whether it runs. */
const WAIT_OUTAGE_MS = 60_000;

/**
 * Resolves when the container is no longer running. A wait whose connection drops (the engine
 * restarted with live-restore, a remote engine's connection was reset) says nothing about the
 * container: its state is asked, and a container still running is waited for again, so a dropped
 * connection is not taken for the server's exit. Rejects once the engine has not answered for
 * WAIT_OUTAGE_MS.
 */
async function waitForStop(container: Docker.Container, tail: LogTail): Promise<void> {
  let failingSince: number | null = null;
  // Said once: a proxy that cuts idle connections would otherwise fill the tail, the server's own
  // lines pushed out of it, over a long cell.
  let said = false;
  for (;;) {
    try {
      await container.wait({ condition: "not-running" });
      return;
    } catch (error) {
      failingSince ??= Date.now();
      // null: the engine did not answer; "gone": the container was removed, so it runs no more.
      const state = await within(container.inspect(), ENGINE_CALL_MS).then(
        (info) => info.State,
        (inspectError: unknown) => (isStatus(inspectError, 404) ? ("gone" as const) : null),
      );
      if (state === "gone" || (state && !state.Running)) return;
      if (state) failingSince = null;
      else if (Date.now() - failingSince >= WAIT_OUTAGE_MS) throw error;
      if (!said) {
        said = true;
        tail.push(
          `\n[perflab] the engine's wait for container ${container.id} broke off (${(error as Error).message}); ${state ? "it still runs: waiting again" : "asking again"} (said once)\n`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** The kernel's count of OOM kills in any cgroup since boot, or null where /proc/vmstat cannot say. */
async function hostOomKills(): Promise<number | null> {
  try {
    const match = /^oom_kill (\d+)$/m.exec(await readFile("/proc/vmstat", "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

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

/** Build output and tool state, never an image's source: hashing them would change tags on every build. */
const IGNORED = [
  "**/node_modules/**",
  "**/.turbo/**",
  "**/*.tsbuildinfo",
  "**/target/**",
  "bin/**",
  "dist/**",
  "**/.venv/**",
  "**/__pycache__/**",
];

/**
 * The repository files a root-context Dockerfile copies (its `COPY` sources other than `--from`
 * stages), relative to the repository root: for the Node and Bun images that is the lock file, the
 * workspace's root configuration and the shared contract folder, none of which is in the server's
 * own folder.
 */
async function rootContextFiles(dockerfile: string, root: string): Promise<string[]> {
  const patterns: string[] = [];
  for (const line of dockerfile.split("\n")) {
    const match = /^\s*COPY\s+(.*)$/i.exec(line);
    if (!match || /--from=/.test(match[1]!)) continue;
    const args = match[1]!.split(/\s+/).filter((a) => a && !a.startsWith("--"));
    for (const source of args.slice(0, -1)) {
      const clean = source.replace(/\/+$/, "");
      patterns.push(clean, `${clean}/**`);
    }
  }
  if (patterns.length === 0) return [];
  return glob(patterns, { cwd: root, ignore: IGNORED.map((p) => `**/${p}`), dot: true, onlyFiles: true });
}

/**
 * The manifest as the image depends on it: variants only change how a container starts, and the
 * folder's own test command is not in the image.
 */
async function manifestForImage(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, "perflab.json"), "utf8");
  try {
    const { variants: _variants, test: _test, ...rest } = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return text;
  }
}

/**
 * Hash of what an image is built from: the server's build inputs, manifest and Docker files, and
 * for a Dockerfile built from the repository root, every repository file it copies.
 */
export async function sourceHash(dir: string, inputs: string[]): Promise<string> {
  const files = (
    await glob([...inputs, "perflab.json", "Dockerfile", ".dockerignore"], {
      cwd: dir,
      ignore: IGNORED,
      dot: true,
    })
  ).sort();
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(file)
      .update("\0")
      .update(file === "perflab.json" ? await manifestForImage(dir) : await readFile(path.join(dir, file)));
  const dockerfile = await readFile(path.join(dir, "Dockerfile"), "utf8").catch(() => "");
  if (/Build context: the repository root/i.test(dockerfile)) {
    const root = path.resolve(dir, "../..");
    for (const file of [...new Set(await rootContextFiles(dockerfile, root))].sort())
      hash
        .update(`/${file}`)
        .update("\0")
        .update(await readFile(path.join(root, file)));
  }
  return hash.digest("hex").slice(0, 12);
}

/**
 * The image a server runs: the one its manifest registers (`image`), or else
 * `perflab/server-<name>:<hash of its sources>`, built from its Dockerfile, so a changed source is a
 * new image, never a stale one. A variant runs its server's image (only its environment differs).
 */
export async function serverImageTag(
  server: Pick<CatalogEntry, "name" | "dir" | "build"> & { base?: string; image?: string | undefined },
): Promise<string> {
  if (server.image) return server.image;
  return `perflab/server-${server.base ?? server.name}:${await sourceHash(server.dir, server.build.inputs)}`;
}

/** A registered image's content id, or an error naming the image and how it gets onto the engine. */
async function requireRegisteredImage(docker: Docker, image: string, server: string, remote: boolean) {
  try {
    return ((await docker.getImage(image).inspect()) as { Id: string }).Id;
  } catch (error) {
    if (!isStatus(error, 404)) throw error;
    throw new Error(
      `image ${image} is not on the Docker engine: the manifest of ${server} registers it as a prebuilt image, so pull or load it there (docker pull ${image}${remote ? " with DOCKER_HOST set to this engine" : ""})`,
    );
  }
}

export async function fixturesImageTag(fixturesDir: string): Promise<string> {
  return `perflab/fixtures:${await sourceHash(fixturesDir, ["**/*.go", "go.mod", "go.sum"])}`;
}

/** perflab's k6 build (packages/k6-output/Dockerfile), for running the load generator in a container. */
export async function k6ImageTag(k6OutputDir: string): Promise<string> {
  return `perflab/k6:${await sourceHash(k6OutputDir, ["**/*.go", "go.mod", "go.sum"])}`;
}

/** A client for the engine at a DOCKER_HOST-style address (unix://, tcp://host:port), or the default socket. */
export function dockerAt(dockerHost?: string): Docker {
  // DOCKER_HOST itself: docker-modem also reads DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as the CLI does.
  if (!dockerHost || dockerHost === process.env.DOCKER_HOST) return new Docker();
  const url = new URL(dockerHost);
  if (url.protocol === "unix:") return new Docker({ socketPath: url.pathname });
  if (url.protocol === "tcp:") return new Docker({ host: url.hostname, port: Number(url.port || 2375) });
  // ssh:// and the rest: docker-modem reads DOCKER_HOST itself.
  return new Docker();
}

const isStatus = (error: unknown, ...codes: number[]) =>
  codes.includes((error as { statusCode?: number }).statusCode ?? -1);

/** How long an engine call that should answer at once may take before the driver stops waiting on it. */
export const ENGINE_CALL_MS = 10_000;

/**
 * The promise, or an error once `ms` passed: a connection to a remote engine that was dropped
 * without a reset never answers, and a cell must not wait on it forever.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the engine within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
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
  const imageFor = options.imageFor ?? serverImageTag;
  // An engine on a unix socket runs on this kernel: its OOM kills show in our /proc/vmstat.
  const localEngine = Boolean((docker.modem as { socketPath?: string }).socketPath);
  type EngineInfo = Parameters<typeof engineFingerprint>[0];
  let info: Promise<EngineInfo> | null = null;
  const engineInfo = () => {
    info ??= docker.info() as Promise<EngineInfo>;
    info.catch(() => {
      info = null;
    });
    return info;
  };
  const engineCapacity = async (): Promise<EngineCapacity> => {
    const { NCPU, MemTotal } = await engineInfo();
    return { cpus: NCPU, memoryBytes: MemTotal };
  };

  return {
    id: "docker",
    docker,
    instance,
    capacity: engineCapacity,
    remote: Boolean(options.remote),

    async start(request: DockerStartRequest) {
      const { server, cellId, env } = request;
      let { port } = request;
      const image = await imageFor(server);
      const imageId =
        server.image && image === server.image
          ? await requireRegisteredImage(docker, image, server.base ?? server.name, Boolean(options.remote))
          : await requireImage(
              docker,
              image,
              `${server.base ?? server.name}${options.remote ? " (DOCKER_HOST set to this engine)" : ""}`,
            );
      const host = await engineCapacity();
      const limits = resolveLimits(request.limits, host);
      const owner = env[OWNER_ENV] ?? ownerMarker(hostId);
      const labels = {
        [LABEL_CELL]: cellId,
        ...(request.runId ? { [LABEL_RUN]: request.runId } : {}),
        [LABEL_SERVER]: server.name,
        [LABEL_OWNER]: owner,
        [LABEL_INSTANCE]: instance,
      };
      let observer: (ServerObserver & { cpuModel: string | null }) | null = null;
      let machine: HostFingerprint | undefined;
      if (options.remote) {
        // A port free on the engine's machine, and a watcher there polling it before the server starts.
        const probe = {
          docker,
          image: await options.remote.probeImage(),
          labels: { ...labels, [LABEL_ROLE]: "probe" },
        };
        [port] = (await enginePorts(probe, 1)) as [number];
        observer = await watchServer(probe, {
          mcp: `http://127.0.0.1:${port}${server.mcpPath}`,
          runtime: `http://127.0.0.1:${port}/debug/runtime`,
        });
        try {
          machine = engineFingerprint(await engineInfo(), observer.cpuModel);
        } catch (error) {
          await observer.close();
          throw error;
        }
      }
      const containerEnv = { ...server.start.env, ...env, PORT: String(port) };
      const container = await docker
        .createContainer({
          name: `perflab-${cellId}-${Date.now().toString(36)}`,
          Image: image,
          Env: Object.entries(containerEnv).map(([k, v]) => `${k}=${v}`),
          Labels: labels,
          StopSignal: "SIGTERM",
          HostConfig: {
            // No NAT or bridge in the measured path: the server listens on the host's 127.0.0.1.
            NetworkMode: "host",
            NanoCpus: Math.round(limits.cpus * 1e9),
            // The cell's own cpuset, or (PERFLAB_DOCKER_CPUSET=1) the first CPUs its quota covers.
            ...(limits.cpuset
              ? { CpusetCpus: limits.cpuset }
              : options.cpuset
                ? { CpusetCpus: cpusetFor(limits.cpus, host.cpus) }
                : {}),
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
        })
        .catch(async (error) => {
          await observer?.close();
          throw error;
        });
      // containerd (cgroup v1) drops a container's OOM event when the container is deleted before its
      // OOM watcher runs (seen on a loaded host): the engine then reports a plain SIGKILL.
      const oomKillsBefore = localEngine ? await hostOomKills() : null;
      let stopRequestedAt: number | null = null;
      const tail = new LogTail();
      // Cold start includes the engine setting up the container, as a user of the image would see it.
      const startedAt = Date.now();
      try {
        await container.start();
      } catch (error) {
        await container.remove({ force: true }).catch(() => undefined);
        await observer?.close();
        throw error;
      }
      // After start, "not-running" resolves at the exit, or at once if the server already exited
      // (a wait sent before start could reach the engine after a very fast exit and never resolve).
      const waited = waitForStop(container, tail);
      // The stream can fail while the server runs (the engine restarted, a remote engine's connection
      // was reset): noted in the tail, never an unhandled rejection that would end the worker.
      const logsDone = followLogs(docker, container, tail).catch((error: Error) => {
        tail.push(`\n[perflab] log stream failed: ${error.message}\n`);
      });
      const stats = watchStats(container);

      // Settled by the engine's report of the exit, or by stop() from the container's state when that
      // report did not come (a dropped wait connection): whichever is first.
      let settleExit!: (info: ExitInfo) => void;
      const exited = new Promise<ExitInfo>((resolve) => {
        settleExit = resolve;
      });
      waited
        .then(async () => {
          // The log stream ends with the container; give it a moment to deliver the last lines.
          await Promise.race([logsDone, new Promise((r) => setTimeout(r, 1_000))]);
          const state = (await container.inspect()).State;
          const info = exitInfoFromState(state);
          if (info.oomKilled || info.signal !== "SIGKILL" || oomKillsBefore === null) return info;
          // A SIGKILL perflab did not send (the container ended before stop() was asked), while the
          // kernel OOM-killed something: that kill was this container's.
          const finishedAt = Date.parse(state.FinishedAt ?? "");
          if (stopRequestedAt !== null && !(finishedAt < stopRequestedAt)) return info;
          const oomKillsNow = await hostOomKills();
          return oomKillsNow !== null && oomKillsNow > oomKillsBefore ? { ...info, oomKilled: true } : info;
        })
        .catch((error: Error): ExitInfo => {
          tail.push(`\n[perflab] lost track of container ${container.id}: ${error.message}\n`);
          return { exitCode: null, signal: null, oomKilled: false };
        })
        .then(settleExit);

      /** The exit once the container was stopped or killed: the engine's report, or else its state. */
      const exitAfterStop = async (): Promise<ExitInfo> => {
        const timeoutMs = options.exitTimeoutMs ?? ENGINE_CALL_MS;
        const reported = await within(exited, timeoutMs).catch(() => null);
        if (reported) return reported;
        let info: ExitInfo = { exitCode: null, signal: null, oomKilled: false };
        try {
          const { State: state } = await within(container.inspect(), ENGINE_CALL_MS);
          if (state.Running) {
            tail.push(`\n[perflab] container ${container.id} still runs after its stop: removing it\n`);
          } else {
            info = exitInfoFromState(state);
            tail.push(
              `\n[perflab] the engine did not report the exit of container ${container.id} within ${timeoutMs} ms: read it from its state\n`,
            );
          }
        } catch (error) {
          tail.push(`\n[perflab] lost track of container ${container.id}: ${(error as Error).message}\n`);
        }
        settleExit(info);
        return info;
      };

      let stopping: Promise<ExitInfo> | null = null;
      return {
        containerId: container.id,
        port,
        ...(observer ? { observer, machine } : {}),
        limits,
        appliedLimits: {
          ...limits,
          cpuset: limits.cpuset ?? (options.cpuset ? cpusetFor(limits.cpus, host.cpus) : null),
        },
        image,
        imageId,
        startedAt,
        exited,
        resources: (options) => stats.latest(options),
        stop(graceMs) {
          stopRequestedAt ??= Date.now();
          stopping ??= (async () => {
            const id = container.id;
            try {
              const graceSeconds = Math.max(1, Math.ceil(graceMs / 1000));
              let stopFailed: Error | null = null;
              // The engine's word that the container had stopped before this stop: its own exit.
              let beforeStop = false;
              try {
                await within(container.stop({ t: graceSeconds }), graceSeconds * 1000 + ENGINE_CALL_MS);
              } catch (error) {
                // 304: already stopped; 404: already gone.
                if (isStatus(error, 304)) beforeStop = true;
                else if (!isStatus(error, 404)) stopFailed = error as Error;
              }
              if (stopFailed) {
                // Left running, it would keep this live worker's labels (never an orphan) and share the
                // machine with every later cell.
                tail.push(
                  `\n[perflab] stopping container ${id} failed (${stopFailed.message}): killing it\n`,
                );
                await within(container.kill({ signal: "SIGKILL" }), ENGINE_CALL_MS).catch((error) => {
                  if (!isStatus(error, 404, 409))
                    tail.push(`\n[perflab] killing container ${id} failed: ${(error as Error).message}\n`);
                });
              }
              const info = await exitAfterStop();
              // 404: already gone; 409: its removal is already under way.
              const removeFailed = await within(
                container.remove({ force: true, v: true }),
                ENGINE_CALL_MS,
              ).then(
                () => null,
                (error: Error) => (isStatus(error, 404, 409) ? null : error),
              );
              if (removeFailed) {
                const removal = `removing container ${id} failed: ${removeFailed.message}`;
                throw new Error(
                  stopFailed ? `stopping container ${id} failed: ${stopFailed.message}; ${removal}` : removal,
                );
              }
              if (stopFailed)
                throw new Error(
                  `stopping container ${id} failed: ${stopFailed.message} (killed and removed it instead)`,
                );
              return beforeStop ? { ...info, beforeStop } : info;
            } finally {
              stats.close();
              await observer?.close();
            }
          })();
          return stopping;
        },
        logTail: () => tail.toString(),
      };
    },

    async removeOrphans() {
      // Cells' servers, k6 and probes, and the fixture backends of a remote engine.
      const containers = await docker.listContainers({ all: true, filters: { label: [LABEL_OWNER] } });
      const self = { hostId, pid: process.pid, instance };
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
    },
  };
}

/**
 * Follows the container's output (stdout and stderr are multiplexed without a TTY) into the tail until
 * the stream ends with the container; rejects when the stream cannot be opened or breaks.
 */
async function followLogs(docker: Docker, container: Docker.Container, tail: LogTail): Promise<void> {
  const stream = (await container.logs({
    follow: true,
    stdout: true,
    stderr: true,
  })) as unknown as Readable;
  const out = new PassThrough();
  out.setEncoding("utf8").on("data", (d: string) => tail.push(d));
  docker.modem.demuxStream(stream, out, out);
  await new Promise<void>((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    // Kept on: a later error with no listener would be thrown.
    stream.on("error", reject);
  });
}
