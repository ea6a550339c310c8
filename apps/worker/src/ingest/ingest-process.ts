import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { IngestReply, IngestRequest } from "./child.ts";
import type { IngestOutcome } from "./ingest-upload.ts";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));
/** The child is TypeScript source, as the worker is: tsx's loader, found from here whatever the cwd. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export type IngestProcess = {
  /** One upload's ingest; rejects with the child's error or how it died. */
  ingest(runId: string): Promise<IngestOutcome>;
  /** Kills the child: an ingest under way rejects (nothing of it was committed). */
  close(): void;
};

/**
 * Uploads are ingested in a child process at nice 19, the lowest scheduling priority: `nice` sets it
 * before Node starts, so V8's and libuv's threads (GC included) inherit it, where os.setPriority in
 * the child would lower its main thread only. The child is started at the first ingest and kept for
 * the next ones (loading the code is most of a short upload's work); one that died is started again.
 */
export function createIngestProcess(env: Record<string, string | undefined>): IngestProcess {
  let child: ChildProcess | null = null;
  let pending: { runId: string; resolve: (o: IngestOutcome) => void; reject: (e: Error) => void } | null =
    null;
  const start = () => {
    const started = spawn("nice", ["-n", "19", process.execPath, "--import", TSX, CHILD], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    started.on("message", (reply: IngestReply) => {
      if (!pending || reply.runId !== pending.runId) return;
      const { resolve, reject } = pending;
      pending = null;
      if ("outcome" in reply) resolve(reply.outcome);
      else reject(new Error(reply.error));
    });
    const ended = (why: string) => {
      if (child === started) child = null;
      pending?.reject(new Error(`the ingest process ended (${why})`));
      pending = null;
    };
    started.on("error", (error) => ended(error.message));
    started.on("exit", (code, signal) => ended(signal ?? `exit code ${code}`));
    return started;
  };
  return {
    ingest(runId) {
      if (pending) return Promise.reject(new Error("an ingest is already under way"));
      child ??= start();
      const running = child;
      return new Promise<IngestOutcome>((resolve, reject) => {
        pending = { runId, resolve, reject };
        running.send({ runId } satisfies IngestRequest);
      });
    },
    close() {
      child?.kill("SIGKILL");
      child = null;
    },
  };
}
