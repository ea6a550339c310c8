import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ChildMessage } from "./child.ts";
import type { IngestOutcome } from "./ingest-upload.ts";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));
/** The child is TypeScript source, as the worker is: tsx's loader, found from here whatever the cwd. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * Runs one upload's ingest in a child process at nice 19, the lowest scheduling priority: `nice`
 * sets it before Node starts, so V8's and libuv's threads (GC included) inherit it, where
 * os.setPriority in the child would lower its main thread only. Resolves with the outcome; rejects
 * with the child's error or how it died. `signal` kills it (worker shutdown).
 */
export function runIngestChild({
  runId,
  env,
  signal,
}: {
  runId: string;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}): Promise<IngestOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn("nice", ["-n", "19", process.execPath, "--import", TSX, CHILD, runId], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      ...(signal ? { signal, killSignal: "SIGKILL" } : {}),
    });
    let message: ChildMessage | null = null;
    child.on("message", (m: ChildMessage) => {
      message = m;
    });
    child.on("error", reject);
    child.on("exit", (code, killed) => {
      const m = message as ChildMessage | null;
      if (m && "outcome" in m) resolve(m.outcome);
      else if (m) reject(new Error(m.error));
      else
        reject(new Error(`the ingest process ended without an outcome (${killed ?? `exit code ${code}`})`));
    });
  });
}
