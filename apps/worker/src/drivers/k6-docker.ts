import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import type Docker from "dockerode";
import { extract, pack } from "tar-stream";
import {
  type K6Input,
  type K6Result,
  type K6Runner,
  k6FileName,
  parseLines,
  skippedLineLog,
} from "../stages/k6.ts";
import { type AttachedContainer, requireImage, startAttached } from "./attached.ts";
import {
  ENGINE_CALL_MS,
  LABEL_CELL,
  LABEL_INSTANCE,
  LABEL_OWNER,
  LABEL_ROLE,
  LABEL_RUN,
  within,
} from "./docker-engine.ts";
import { watchStats } from "./docker-stats.ts";
import { firstLine, K6_ARGS } from "./k6-local.ts";
import { LogTail } from "./local.ts";

type DockerK6Options = {
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
};

/**
 * The same k6 build in its own container (packages/k6-output/Dockerfile, FROM scratch), on the host
 * network so it reaches the server on 127.0.0.1 wherever the engine runs. Nothing is shared through
 * the file system, so a remote engine or a worker that itself runs in a container works the same:
 * the script goes in with the engine's archive API, perflab's output comes out on k6's stdout
 * (attached before start), the end-of-test summary comes back through the archive API, and CPU and
 * memory come from the engine's stats. The container carries the cell's labels, so a restarted
 * worker removes it with the server's container.
 */
export function createDockerK6Runner(options: DockerK6Options): K6Runner {
  const { docker, image } = options;
  const ensureImage = () => requireImage(docker, image, "k6");
  return {
    kind: "docker",
    location: image,
    async version() {
      await ensureImage();
      return `${firstLine(await k6Version(docker, image))} [container ${image}]`;
    },
    async run(input) {
      await ensureImage();
      const attached = await startK6Container(options, input);
      const stats = watchStats(attached.container);
      const skipped = skippedLineLog();
      const exit = trackExit(attached, {
        exitTimeoutMs: options.exitTimeoutMs ?? ENGINE_CALL_MS,
        stopGraceMs: options.stopGraceMs ?? 10_000,
        timeoutMs: input.timeoutMs,
      });
      const done = exit.exited.then(async ({ abandoned, ...result }) => {
        exit.clearTimers();
        stats.close();
        return { ...result, ...(await endOfRun(attached, abandoned === true)) };
      });
      return {
        lines: parseLines(attached.stdout, {
          other: (line) => attached.tail.push(`${line}\n`),
          onUnparsable: skipped.add,
        }),
        done,
        kill: exit.kill,
        resources: () => stats.latest(),
        skippedLines: () => ({ count: skipped.count, samples: skipped.samples }),
      };
    },
  };
}

/** `k6 version` in a throwaway container: its output. */
async function k6Version(docker: Docker, image: string): Promise<string> {
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
  return out.toString();
}

/** Creates k6's container with the cell's labels, puts the scripts in and starts it attached. */
function startK6Container(options: DockerK6Options, input: K6Input): Promise<AttachedContainer> {
  const scriptName = path.basename(input.script);
  const files = Object.entries(input.files ?? {}).map(([variable, content]) => ({
    variable,
    name: k6FileName(variable),
    content: Buffer.from(content),
  }));
  const fileEnv = Object.fromEntries(files.map((f) => [f.variable, `/work/${f.name}`]));
  const env = { K6_NO_USAGE_REPORT: "true", ...input.env, ...fileEnv, SUMMARY_PATH: "/work/k6-summary.json" };
  return startAttached(
    options.docker,
    {
      name: `perflab-k6-${input.cell.id}-${Date.now().toString(36)}`,
      Image: options.image,
      Cmd: [...K6_ARGS, "--out", "perflab=/dev/stdout", `/work/${scriptName}`],
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: {
        [LABEL_CELL]: input.cell.id,
        [LABEL_RUN]: input.cell.runId,
        [LABEL_OWNER]: input.cell.owner,
        [LABEL_INSTANCE]: options.instance,
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
      // The script and the modules beside it that it imports (./load.js): every .js file there,
      // and the files it opens.
      const dir = path.dirname(input.script);
      const names = (await readdir(dir)).filter((name) => name.endsWith(".js"));
      const scripts = await Promise.all(
        names.map(async (name) => ({ name, content: await readFile(path.join(dir, name)) })),
      );
      await created.putArchive(await tarOf([...scripts, ...files]), { path: "/work" });
    },
  );
}

type Exit = { exitCode: number | null; signal: string | null; abandoned?: boolean };

/**
 * Settled by the engine's report of k6's exit or, once k6 was killed, by the runner itself when
 * that report does not come (a wedged engine, a remote connection dropped without a reset):
 * whatever the engine does, the cell gets its k6 result and the end of its lines.
 */
function trackExit(
  { container, tail, waited }: AttachedContainer,
  times: { exitTimeoutMs: number; stopGraceMs: number; timeoutMs: number },
) {
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
        `\n[perflab] the engine did not report k6's exit within ${times.exitTimeoutMs} ms of its kill: the container was given up\n`,
      );
      settleExit({ exitCode: null, signal: null, abandoned: true });
    }, times.exitTimeoutMs);
  };
  const timer = setTimeout(() => {
    tail.push(`\n[perflab] k6 exceeded ${times.timeoutMs} ms and was killed\n`);
    forceKill();
  }, times.timeoutMs);
  return {
    exited,
    clearTimers: () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      clearTimeout(escalate);
    },
    kill: (force?: boolean) => {
      if (settled) return;
      if (force) return forceKill();
      void container.kill({ signal: "SIGTERM" }).catch(() => undefined);
      // A k6 (or an engine) that does not end within the grace is killed, then given up.
      escalate ??= setTimeout(forceKill, times.stopGraceMs);
    },
  };
}

/** k6's log tail and end-of-test summary once it exited, and the container removed. */
async function endOfRun(
  { container, tail, endStreamsAfter, remove }: AttachedContainer,
  abandoned: boolean,
): Promise<Pick<K6Result, "logTail" | "summary">> {
  if (abandoned) {
    // Nothing more comes from an engine that does not answer: the lines end now, no summary is
    // asked for, and the container's removal is sent without waiting on it.
    endStreamsAfter(0);
    void remove();
    return { logTail: tail.toString(), summary: null };
  }
  endStreamsAfter(5_000);
  const summary = await within(readArchiveFile(container, "/work/k6-summary.json"), ENGINE_CALL_MS)
    .then((text) => (text === null ? null : (JSON.parse(text) as unknown)))
    .catch(() => null);
  await within(remove(), ENGINE_CALL_MS).catch(() => {
    tail.push(`\n[perflab] the engine did not remove the k6 container within ${ENGINE_CALL_MS} ms\n`);
  });
  return { logTail: tail.toString(), summary };
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
