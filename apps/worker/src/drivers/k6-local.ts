import { execFile, spawn } from "node:child_process";
import { constants, createReadStream } from "node:fs";
import { open, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { processResources } from "../proc.ts";
import { type K6Input, type K6Runner, k6FileName, parseLines, skippedLineLog } from "../stages/k6.ts";
import { LogTail } from "./local.ts";

export const K6_ARGS = ["run", "--no-usage-report", "--quiet", "--address", "127.0.0.1:0"];
export const firstLine = (text: string) => text.trim().split("\n")[0] || "unknown";

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
      const fileEnv = await writeK6Files(input);
      const child = spawn(bin, [...K6_ARGS, "--out", `perflab=${fifo}`, input.script], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          K6_NO_USAGE_REPORT: "true",
          ...input.env,
          ...fileEnv,
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

/** Writes the script's files into the cell's work dir: each variable and the path it names. */
async function writeK6Files(input: K6Input): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [variable, content] of Object.entries(input.files ?? {})) {
    env[variable] = path.join(input.workDir, k6FileName(variable));
    await writeFile(env[variable], content, { mode: 0o600 });
  }
  return env;
}
