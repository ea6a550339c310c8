import { createInterface } from "node:readline";
import type Docker from "dockerode";
import { z } from "zod";
import { requireImage, startAttached } from "./attached.ts";
import type { HostFingerprint, ServerObserver } from "./types.ts";

/**
 * perflab's probe (servers/fixtures/cmd/probe, in the fixtures image) runs in a container on a
 * Docker engine's host network, where the worker cannot look: on an engine on another machine, the
 * server's 127.0.0.1 is that machine's loopback. It picks free ports there, waits for backends, and
 * watches a server (its first answered MCP initialize, then each second the machine's CPU times and
 * the server's /debug/runtime), reporting one JSON object per line on its attached stdout.
 */
const ZProbeLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ports"), ports: z.array(z.number().int()) }),
  z.object({ type: z.literal("ready"), t: z.number(), cpuModel: z.string().optional() }),
  z.object({ type: z.literal("healthy"), t: z.number() }),
  z.object({ type: z.literal("cpu"), t: z.number(), busy: z.number(), total: z.number() }),
  z.object({ type: z.literal("runtime"), t: z.number(), runtime: z.unknown() }),
  z.object({ type: z.literal("error"), message: z.string() }),
]);
type ProbeLine = z.infer<typeof ZProbeLine>;

export type ProbeOptions = {
  docker: Docker;
  /** The fixtures image, which carries /probe. */
  image: string;
  /** The cell's (or the fixtures') labels: a restarted worker removes a probe its dead owner left. */
  labels: Record<string, string>;
};

type ProbeProcess = {
  lines: AsyncIterable<ProbeLine>;
  /** Resolves with the exit code once the probe ended and was removed. */
  done: Promise<number | null>;
  stop: () => Promise<void>;
  output: () => string;
};

/** Starts `/probe <args>` with its stdout attached before the start, so no line is missed. */
async function startProbe(options: ProbeOptions, args: string[], timeoutMs: number): Promise<ProbeProcess> {
  const { docker, image } = options;
  await requireImage(docker, image, "fixtures (DOCKER_HOST set to this engine)");
  const { container, stdout, tail, waited, endStreamsAfter, remove } = await startAttached(
    docker,
    {
      Image: image,
      Entrypoint: ["/probe"],
      Cmd: args,
      Env: [`PROBE_TIMEOUT_MS=${timeoutMs}`],
      Labels: options.labels,
      StopSignal: "SIGTERM",
      HostConfig: {
        NetworkMode: "host",
        SecurityOpt: ["no-new-privileges"],
        CapDrop: ["ALL"],
        ReadonlyRootfs: true,
        PidsLimit: 64,
        Memory: 64 * 1024 * 1024,
        RestartPolicy: { Name: "no" },
        LogConfig: { Type: "none", Config: {} },
      },
    },
    "the probe",
  );
  const done = waited
    .then(
      (r) => r.StatusCode as number | null,
      () => null,
    )
    .then(async (code) => {
      endStreamsAfter(2_000);
      await remove();
      return code;
    });
  async function* lines(): AsyncIterable<ProbeLine> {
    for await (const raw of createInterface({ input: stdout, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (!raw.trim()) continue;
      tail.push(`${raw}\n`);
      let parsed: ReturnType<typeof ZProbeLine.safeParse>;
      try {
        parsed = ZProbeLine.safeParse(JSON.parse(raw));
      } catch {
        continue;
      }
      if (parsed.success) yield parsed.data;
    }
  }
  return {
    lines: lines(),
    done,
    output: () => tail.toString().trim(),
    async stop() {
      await container.stop({ t: 2 }).catch(() => undefined);
      await done;
    },
  };
}

/** Runs a short probe mode to its end and returns its first non-error line, or throws its reason. */
async function probeOnce(options: ProbeOptions, args: string[], timeoutMs: number): Promise<ProbeLine> {
  const probe = await startProbe(options, args, timeoutMs);
  let result: ProbeLine | null = null;
  for await (const line of probe.lines) {
    if (line.type === "error") throw new Error(line.message);
    result ??= line;
  }
  const code = await probe.done;
  if (!result || code !== 0) {
    throw new Error(
      `probe ${args[0]} ended with exit code ${code}: ${probe.output().slice(-300) || "no output"}`,
    );
  }
  return result;
}

/** `count` distinct TCP ports free on the engine machine's 127.0.0.1. */
export async function enginePorts(options: ProbeOptions, count: number): Promise<number[]> {
  const line = await probeOnce(options, ["ports", String(count)], 10_000);
  if (line.type !== "ports" || line.ports.length !== count) throw new Error("probe gave no ports");
  return line.ports;
}

/** Waits until `url` (http:// answers 2xx, tcp:// accepts) on the engine machine's loopback. */
export async function engineWait(options: ProbeOptions, url: string, timeoutMs: number): Promise<void> {
  await probeOnce(options, ["wait", url], timeoutMs);
}

/** What the probe has reported so far, and a wait for its next line. */
class ProbeReadings {
  healthyAt: number | null = null;
  failure: string | null = null;
  host: { busy: number; total: number } | null = null;
  /** Counts CPU readings, so each of the sampler's seconds takes a fresh one. */
  hostSeq = 0;
  hostServed = 0;
  runtime: unknown;
  sampled = false;
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  changed(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.listeners.add(done);
    });
  }

  /** Reads the probe's lines to their end; its end or a broken output is the failure from then on. */
  async follow(iterator: AsyncIterator<ProbeLine>): Promise<void> {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        const line = next.value;
        if (line.type === "healthy") this.healthyAt ??= Date.now();
        else if (line.type === "cpu") {
          this.host = { busy: line.busy, total: line.total };
          this.hostSeq++;
        } else if (line.type === "runtime") {
          this.runtime = line.runtime ?? undefined;
          this.sampled = true;
        } else if (line.type === "error") this.failure = line.message;
        this.notify();
      }
    } catch (error) {
      this.failure = `the probe's output broke: ${(error as Error).message}`;
    }
    this.failure ??= "the probe on the Docker engine stopped";
    this.notify();
  }
}

/** The probe's first line says it runs (or why it could not): the machine's CPU model, or an error. */
async function probeReady(probe: ProbeProcess, iterator: AsyncIterator<ProbeLine>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  let first: IteratorResult<ProbeLine, unknown>;
  try {
    first = await Promise.race([
      iterator.next(),
      new Promise<{ done: true; value: undefined }>((resolve) => {
        timer = setTimeout(() => resolve({ done: true, value: undefined }), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (error) {
    first = { done: true, value: (error as Error).message };
  }
  if (first.done || first.value.type !== "ready") {
    await probe.stop();
    const reason = !first.done && first.value.type === "error" ? first.value.message : probe.output();
    throw new Error(`the probe on the Docker engine did not start: ${reason || "no output"}`);
  }
  return first.value.cpuModel ?? null;
}

/**
 * Watches a server from the engine's machine. Resolves once the probe polls (before the server
 * starts), so a cold start is seen from its first moment. Health times are the worker's clock when
 * the probe's line arrived, comparable with the worker's own start time; samples carry the engine
 * machine's CPU times, so host CPU % is that machine's.
 */
export async function watchServer(
  options: ProbeOptions,
  urls: { mcp: string; runtime: string },
): Promise<ServerObserver & { cpuModel: string | null }> {
  // The probe's own limit is wide; the worker applies the cell's health timeout itself.
  const probe = await startProbe(options, ["watch", urls.mcp, urls.runtime], 30 * 60_000);
  const iterator = probe.lines[Symbol.asyncIterator]();
  const cpuModel = await probeReady(probe, iterator);
  const r = new ProbeReadings();
  void r.follow(iterator);
  return {
    cpuModel,
    async waitHealthy({ timeoutMs, exited }) {
      let serverExited = false;
      void exited.then(() => {
        serverExited = true;
        r.notify();
      });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (r.healthyAt !== null) return r.healthyAt;
        if (serverExited) throw new Error("server exited before it became healthy");
        if (r.failure) throw new Error(r.failure);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`server did not answer an MCP initialize within ${timeoutMs} ms`);
        await r.changed(left);
      }
    },
    async firstRuntime() {
      const deadline = Date.now() + 2_000;
      while (!r.sampled && !r.failure && Date.now() < deadline) await r.changed(deadline - Date.now());
      return r.runtime ?? null;
    },
    runtime: async () => r.runtime,
    async hostCpu() {
      // The probe reads its machine a few ms after each second, as the worker's sampler does: wait a
      // little for that reading rather than take the last second's twice (clocks and links differ).
      const deadline = Date.now() + 400;
      while (r.hostSeq === r.hostServed && !r.failure && Date.now() < deadline)
        await r.changed(deadline - Date.now());
      r.hostServed = r.hostSeq;
      return r.host;
    },
    close: () => probe.stop(),
  };
}

/** The engine's machine as a cell records it (`engine:<id>`: never confused with a worker's host id). */
export function engineFingerprint(
  info: {
    ID: string;
    Name: string;
    NCPU: number;
    MemTotal: number;
    KernelVersion: string;
    Architecture: string;
    OSType?: string;
  },
  cpuModel: string | null,
): HostFingerprint {
  return {
    hostId: `engine:${info.ID}`,
    hostname: info.Name,
    cpuModel: cpuModel ?? "unknown",
    cores: info.NCPU,
    kernel: `${info.OSType === "linux" ? "Linux" : (info.OSType ?? "")} ${info.KernelVersion}`.trim(),
    // In Node's names, as the worker's own fingerprint has them.
    arch:
      ({ x86_64: "x64", aarch64: "arm64" } as Record<string, string>)[info.Architecture] ?? info.Architecture,
    memoryBytes: info.MemTotal,
  };
}
