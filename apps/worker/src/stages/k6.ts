import { execFile, spawn } from "node:child_process";
import { constants, createReadStream } from "node:fs";
import { open, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { PassThrough, type Readable } from "node:stream";
import { promisify } from "node:util";
import { type TK6OutputLine, ZK6OutputLine } from "@perflab/contracts";
import type Docker from "dockerode";
import { extract, pack } from "tar-stream";
import { requireImage, startAttached } from "../drivers/attached.ts";
import {
  ENGINE_CALL_MS,
  LABEL_CELL,
  LABEL_INSTANCE,
  LABEL_OWNER,
  LABEL_ROLE,
  LABEL_RUN,
  watchStats,
  within,
} from "../drivers/docker.ts";
import { LogTail } from "../drivers/local.ts";
import type { ServerResources } from "../drivers/types.ts";
import { processResources } from "../proc.ts";

export type K6RunnerKind = "local" | "docker";

export type K6Result = {
  exitCode: number | null;
  signal: string | null;
  logTail: string;
  /** The JSON k6's handleSummary wrote (the scenario writes it to SUMMARY_PATH), or null. */
  summary: unknown;
};

export type K6Input = {
  /** Path of the scenario script on the worker's machine. */
  script: string;
  /** The cell's scratch directory on the worker's machine. */
  workDir: string;
  env: Record<string, string>;
  timeoutMs: number;
  cell: { id: string; runId: string; owner: string };
};

export type K6Run = {
  /** Parsed lines of perflab's k6 output, in the order k6 wrote them. */
  lines: AsyncIterable<TK6OutputLine>;
  done: Promise<K6Result>;
  /** Graceful stop (k6 ends the test and still writes its summary); `force`: SIGKILL. */
  kill: (force?: boolean) => void;
  /** k6's own cumulative CPU seconds and memory, for the saturation check. */
  resources: () => Promise<ServerResources | null>;
  /** Output lines read so far that were not JSON (one cut off when k6 was killed mid-write): skipped. */
  skippedLines: () => { count: number; samples: string[] };
};

/** Where k6 runs: the pinned binary as a local process, or the same build in its own container. */
export type K6Runner = {
  readonly kind: K6RunnerKind;
  /** The binary's path or the image's tag. */
  readonly location: string;
  version(): Promise<string>;
  run(input: K6Input): Promise<K6Run>;
};

const K6_ARGS = ["run", "--no-usage-report", "--quiet", "--address", "127.0.0.1:0"];
const firstLine = (text: string) => text.trim().split("\n")[0] || "unknown";

/**
 * The pinned k6 as a child process. perflab's output writes NDJSON into a named pipe in the cell's
 * work dir, so per-second histograms stream to the worker without touching the disk. (Node's extra
 * stdio channels are socket pairs, which k6 cannot open by path.)
 */
export function createLocalK6Runner(bin: string): K6Runner {
  return {
    kind: "local",
    location: bin,
    async version() {
      const { stdout } = await promisify(execFile)(bin, ["version"], { timeout: 10_000 });
      return firstLine(stdout);
    },
    async run(input) {
      const fifo = path.join(input.workDir, "k6-output.ndjson");
      const summaryPath = path.join(input.workDir, "k6-summary.json");
      await promisify(execFile)("mkfifo", ["-m", "600", fifo]);
      const child = spawn(bin, [...K6_ARGS, "--out", `perflab=${fifo}`, input.script], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          K6_NO_USAGE_REPORT: "true",
          ...input.env,
          SUMMARY_PATH: summaryPath,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const tail = new LogTail();
      child.stdout.setEncoding("utf8").on("data", (d: string) => tail.push(d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => tail.push(d));
      const skipped = skippedLineLog();
      const timer = setTimeout(() => {
        tail.push(`\n[perflab] k6 exceeded ${input.timeoutMs} ms and was killed\n`);
        child.kill("SIGKILL");
      }, input.timeoutMs);
      const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => {
        child.once("error", (error) => {
          tail.push(`\n[perflab] could not start k6: ${error.message}\n`);
          resolve({ exitCode: null, signal: null });
        });
        child.once("close", (exitCode, signal) => resolve({ exitCode, signal }));
      }).finally(() => clearTimeout(timer));
      // If k6 dies before it opened the pipe, the reader would wait forever: open and close it once.
      void exited.then(async () => {
        const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
        await handle?.close();
      });
      const done = exited.then(async (exit) => ({
        ...exit,
        logTail: tail.toString(),
        summary: await readFile(summaryPath, "utf8")
          .then((text) => JSON.parse(text) as unknown)
          .catch(() => null),
      }));
      return {
        lines: parseLines(createReadStream(fifo), { onUnparsable: skipped.add }),
        done,
        kill: (force) => child.kill(force ? "SIGKILL" : "SIGTERM"),
        resources: () => (child.pid === undefined ? Promise.resolve(null) : processResources(child.pid)),
        skippedLines: () => ({ count: skipped.count, samples: skipped.samples }),
      };
    },
  };
}

/**
 * The same k6 build in its own container (packages/k6-output/Dockerfile, FROM scratch), on the host
 * network so it reaches the server on 127.0.0.1 wherever the engine runs. Nothing is shared through
 * the file system, so a remote engine or a worker that itself runs in a container works the same:
 * the script goes in with the engine's archive API, perflab's output comes out on k6's stdout
 * (attached before start), the end-of-test summary comes back through the archive API, and CPU and
 * memory come from the engine's stats. The container carries the cell's labels, so a restarted
 * worker removes it with the server's container.
 */
export function createDockerK6Runner(options: {
  docker: Docker;
  image: string;
  instance: string;
  /**
   * How long, once k6 was killed (forced, or for exceeding its time), the runner waits for the
   * engine to report its exit before it gives up on the container (default 10 s).
   */
  exitTimeoutMs?: number;
  /** How long a graceful stop may take before k6 is killed (default 10 s). */
  stopGraceMs?: number;
}): K6Runner {
  const { docker, image, instance } = options;
  const exitTimeoutMs = options.exitTimeoutMs ?? ENGINE_CALL_MS;
  const stopGraceMs = options.stopGraceMs ?? 10_000;
  const ensureImage = () => requireImage(docker, image, "k6");
  return {
    kind: "docker",
    location: image,
    async version() {
      await ensureImage();
      const out = new LogTail();
      const sink = new PassThrough().setEncoding("utf8");
      sink.on("data", (d: string) => out.push(d));
      const result = await new Promise<{ StatusCode: number }>((resolve, reject) => {
        docker.run(
          image,
          ["version"],
          // Without a TTY (no terminal escapes in the version string), demultiplexed.
          [sink, sink],
          { Tty: false, HostConfig: { NetworkMode: "none" } },
          {},
          (error: unknown, data: { StatusCode: number }, container?: Docker.Container) => {
            void container?.remove({ force: true }).catch(() => undefined);
            if (error) reject(error);
            else resolve(data);
          },
        );
      });
      if (result.StatusCode !== 0) throw new Error(`k6 version in ${image} exited ${result.StatusCode}`);
      return `${firstLine(out.toString())} [container ${image}]`;
    },
    async run(input) {
      await ensureImage();
      const scriptName = path.basename(input.script);
      const env = { K6_NO_USAGE_REPORT: "true", ...input.env, SUMMARY_PATH: "/work/k6-summary.json" };
      const { container, stdout, tail, waited, endStreamsAfter, remove } = await startAttached(
        docker,
        {
          name: `perflab-k6-${input.cell.id}-${Date.now().toString(36)}`,
          Image: image,
          Cmd: [...K6_ARGS, "--out", "perflab=/dev/stdout", `/work/${scriptName}`],
          Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
          Labels: {
            [LABEL_CELL]: input.cell.id,
            [LABEL_RUN]: input.cell.runId,
            [LABEL_OWNER]: input.cell.owner,
            [LABEL_INSTANCE]: instance,
            [LABEL_ROLE]: "k6",
          },
          HostConfig: {
            NetworkMode: "host",
            SecurityOpt: ["no-new-privileges"],
            CapDrop: ["ALL"],
            PidsLimit: 4096,
            RestartPolicy: { Name: "no" },
            // Everything k6 prints is read through the attached stream; the engine keeps no log file.
            LogConfig: { Type: "none", Config: {} },
          },
        },
        "k6",
        async (created) => {
          // The script and the modules beside it that it imports (./load.js): every .js file there.
          const dir = path.dirname(input.script);
          const names = (await readdir(dir)).filter((name) => name.endsWith(".js"));
          const files = await Promise.all(
            names.map(async (name) => ({ name, content: await readFile(path.join(dir, name)) })),
          );
          await created.putArchive(await tarOf(files), { path: "/work" });
        },
      );
      const stats = watchStats(container);
      const skipped = skippedLineLog();
      // Settled by the engine's report of k6's exit or, once k6 was killed, by the runner itself when
      // that report does not come (a wedged engine, a remote connection dropped without a reset):
      // whatever the engine does, the cell gets its k6 result and the end of its lines.
      type Exit = { exitCode: number | null; signal: string | null; abandoned?: boolean };
      let settleExit!: (exit: Exit) => void;
      const exited = new Promise<Exit>((resolve) => {
        settleExit = resolve;
      });
      let settled = false;
      void exited.then(() => {
        settled = true;
      });
      waited
        .then(
          (r): Exit => ({ exitCode: r.StatusCode, signal: null }),
          (error: Error): Exit => {
            tail.push(`\n[perflab] lost track of the k6 container: ${error.message}\n`);
            return { exitCode: null, signal: null };
          },
        )
        .then(settleExit);
      let giveUp: NodeJS.Timeout | undefined;
      let escalate: NodeJS.Timeout | undefined;
      const forceKill = () => {
        if (settled || giveUp) return;
        void container.kill({ signal: "SIGKILL" }).catch(() => undefined);
        giveUp = setTimeout(() => {
          tail.push(
            `\n[perflab] the engine did not report k6's exit within ${exitTimeoutMs} ms of its kill: the container was given up\n`,
          );
          settleExit({ exitCode: null, signal: null, abandoned: true });
        }, exitTimeoutMs);
      };
      const timer = setTimeout(() => {
        tail.push(`\n[perflab] k6 exceeded ${input.timeoutMs} ms and was killed\n`);
        forceKill();
      }, input.timeoutMs);
      const done = exited.then(async ({ abandoned, ...exit }) => {
        clearTimeout(timer);
        clearTimeout(giveUp);
        clearTimeout(escalate);
        stats.close();
        if (abandoned) {
          // Nothing more comes from an engine that does not answer: the lines end now, no summary is
          // asked for, and the container's removal is sent without waiting on it.
          endStreamsAfter(0);
          void remove();
          return { ...exit, logTail: tail.toString(), summary: null };
        }
        endStreamsAfter(5_000);
        const summary = await within(readArchiveFile(container, "/work/k6-summary.json"), ENGINE_CALL_MS)
          .then((text) => (text === null ? null : (JSON.parse(text) as unknown)))
          .catch(() => null);
        await within(remove(), ENGINE_CALL_MS).catch(() => {
          tail.push(`\n[perflab] the engine did not remove the k6 container within ${ENGINE_CALL_MS} ms\n`);
        });
        return { ...exit, logTail: tail.toString(), summary };
      });
      return {
        lines: parseLines(stdout, {
          other: (line) => tail.push(`${line}\n`),
          onUnparsable: skipped.add,
        }),
        done,
        kill: (force) => {
          if (settled) return;
          if (force) return forceKill();
          void container.kill({ signal: "SIGTERM" }).catch(() => undefined);
          // A k6 (or an engine) that does not end within the grace is killed, then given up.
          escalate ??= setTimeout(forceKill, stopGraceMs);
        },
        resources: () => stats.latest(),
        skippedLines: () => ({ count: skipped.count, samples: skipped.samples }),
      };
    },
  };
}

/** A tar archive of read-only files, for the engine's archive API. */
function tarOf(files: { name: string; content: Buffer }[]): Promise<Buffer> {
  const archive = pack();
  for (const { name, content } of files) archive.entry({ name, mode: 0o444, size: content.length }, content);
  archive.finalize();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    archive.on("data", (c: unknown) => chunks.push(c as Buffer));
    archive.once("end", () => resolve(Buffer.concat(chunks)));
    archive.once("error", reject);
  });
}

/** One file out of a (stopped) container, or null when it does not exist. */
async function readArchiveFile(container: Docker.Container, file: string): Promise<string | null> {
  let archive: Readable;
  try {
    archive = (await container.getArchive({ path: file })) as unknown as Readable;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
  const unpack = extract();
  // pipe() does not pass errors on: a broken archive must end the read, not hang it.
  archive.once("error", (error) => unpack.destroy(error));
  archive.pipe(unpack);
  let content: string | null = null;
  try {
    for await (const entry of unpack) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (entry.header.type === "file" && content === null) content = Buffer.concat(chunks).toString("utf8");
    }
  } finally {
    archive.destroy();
  }
  return content;
}

/** Output lines that were not JSON, kept (shortened, the first few) for the cell's log. */
function skippedLineLog() {
  const log = {
    count: 0,
    samples: [] as string[],
    add: (raw: string, error: Error) => {
      log.count++;
      if (log.samples.length < 3) log.samples.push(`${raw.slice(0, 120)} (${error.message})`);
    },
  };
  return log;
}

/**
 * perflab's output lines. On a stream shared with other output (k6's stdout in a container), lines
 * that are not perflab's JSON (the summary's short text) go to `other`; on the pipe, they are errors.
 * A line that is not JSON at all (k6 killed mid-write cuts its last line) goes to `onUnparsable` and
 * is skipped: the cell's reason is then k6's exit, not the parse error, and the ingest's count check
 * still catches a measurement that lost data.
 */
async function* parseLines(
  stream: Readable,
  handlers: { other?: (line: string) => void; onUnparsable?: (raw: string, error: Error) => void } = {},
): AsyncIterable<TK6OutputLine> {
  const { other, onUnparsable } = handlers;
  const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const raw of rl) {
      if (!raw.trim()) continue;
      if (other && !raw.startsWith("{")) {
        other(raw);
        continue;
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (error) {
        onUnparsable?.(raw, error as Error);
        continue;
      }
      const parsed = ZK6OutputLine.safeParse(json);
      if (!parsed.success) throw new Error(`unexpected k6 output line: ${raw.slice(0, 200)}`);
      yield parsed.data;
    }
  } finally {
    // A reader that stops early closes its end: a local k6 then gets EPIPE instead of blocking.
    rl.close();
    stream.destroy();
  }
}
