/**
 * One upload's ingest in a process of its own, started under `nice -n 19` (see run-child.ts) so the
 * decoding never takes CPU from a benchmark measured on the same host. Argument: the run id. The
 * outcome goes to the parent over IPC; the process exits with its parent (IPC disconnect).
 */
import os from "node:os";
import { createDb } from "@perflab/db";
import { type IngestOutcome, ingestUpload } from "./ingest-upload.ts";

export type ChildMessage = { outcome: IngestOutcome } | { error: string };

// The main thread too when `nice` was missing: the lowest priority a process can ask for.
try {
  os.setPriority(19);
} catch {
  // Already lower than the parent may set, or not permitted: the nice value stands.
}
process.on("disconnect", () => process.exit(1));

const runId = process.argv[2] ?? "";
const databaseUrl = process.env.DATABASE_URL ?? "";
const rollupMinSeconds = Number(process.env.PERFLAB_ROLLUP_MIN_SECONDS) || undefined;
const db = createDb(databaseUrl, { poolSize: 2 });
const send = (message: ChildMessage) =>
  new Promise<void>((resolve) => (process.send ? process.send(message, () => resolve()) : resolve()));

ingestUpload({ db, runId, ...(rollupMinSeconds ? { rollupMinSeconds } : {}) })
  .then((outcome) => send({ outcome }))
  .catch((error: Error) => send({ error: error.message }))
  .finally(async () => {
    await db.$disconnect();
    process.exit(0);
  });
