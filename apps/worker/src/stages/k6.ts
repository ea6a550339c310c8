import { execFile, spawn } from "node:child_process";
import { constants, createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { type TK6OutputLine, ZK6OutputLine } from "@perflab/contracts";
import { LogTail } from "../drivers/local.ts";

export async function k6Version(bin: string): Promise<string> {
  const { stdout } = await promisify(execFile)(bin, ["version"], { timeout: 10_000 });
  return stdout.trim().split("\n")[0] ?? "unknown";
}

export type K6Result = { exitCode: number | null; signal: string | null; logTail: string };

export type K6Run = {
  pid: number | undefined;
  /** Parsed lines of perflab's k6 output, in the order k6 wrote them. */
  lines: AsyncIterable<TK6OutputLine>;
  done: Promise<K6Result>;
  kill: () => void;
};

/**
 * Runs k6 with perflab's output writing NDJSON into a named pipe in the cell's work dir, so
 * per-second histograms stream to the worker without touching the disk. (Node's extra stdio
 * channels are socket pairs, which k6 cannot open by path.)
 */
export async function runK6(input: {
  bin: string;
  script: string;
  workDir: string;
  env: Record<string, string>;
  timeoutMs: number;
}): Promise<K6Run> {
  const fifo = path.join(input.workDir, "k6-output.ndjson");
  await promisify(execFile)("mkfifo", ["-m", "600", fifo]);
  const child = spawn(
    input.bin,
    [
      "run",
      "--no-usage-report",
      "--quiet",
      "--address",
      "127.0.0.1:0",
      "--out",
      `perflab=${fifo}`,
      input.script,
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        K6_NO_USAGE_REPORT: "true",
        ...input.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const tail = new LogTail();
  child.stdout.setEncoding("utf8").on("data", (d: string) => tail.push(d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => tail.push(d));
  const timer = setTimeout(() => {
    tail.push(`\n[perflab] k6 exceeded ${input.timeoutMs} ms and was killed\n`);
    child.kill("SIGKILL");
  }, input.timeoutMs);
  const done = new Promise<K6Result>((resolve) => {
    child.once("error", (error) => {
      clearTimeout(timer);
      tail.push(`\n[perflab] could not start k6: ${error.message}\n`);
      resolve({ exitCode: null, signal: null, logTail: tail.toString() });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code, signal, logTail: tail.toString() });
    });
  });
  // If k6 dies before it opened the pipe, the reader would wait forever: open and close it once.
  void done.then(async () => {
    const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
    await handle?.close();
  });
  return {
    pid: child.pid,
    lines: parseLines(createReadStream(fifo)),
    done,
    kill: () => child.kill("SIGTERM"),
  };
}

async function* parseLines(stream: Readable): AsyncIterable<TK6OutputLine> {
  const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const raw of rl) {
    if (!raw.trim()) continue;
    const parsed = ZK6OutputLine.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`unexpected k6 output line: ${raw.slice(0, 200)}`);
    yield parsed.data;
  }
}
