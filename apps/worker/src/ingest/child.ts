/**
 * The process uploads are ingested in, started under `nice -n 19` (see ingest-process.ts) so the
 * decoding never takes CPU from a benchmark measured on the same host. It stays up between jobs
 * (loading the code once) and takes one run id at a time over IPC, answering with the outcome; it
 * exits with its parent (IPC disconnect).
 */
import os from "node:os";
import { createDb } from "@perflab/db";
import { type IngestOutcome, ingestUpload } from "./ingest-upload.ts";

export type IngestRequest = { runId: string };
export type IngestReply = { runId: string } & ({ outcome: IngestOutcome } | { error: string });

// The main thread too when `nice` was missing: the lowest priority a process can ask for.
try {
  os.setPriority(19);
} catch {
  // Already lower than the parent may set, or not permitted: the nice value stands.
}
process.on("disconnect", () => process.exit(1));

const rollupMinSeconds = Number(process.env.PERFLAB_ROLLUP_MIN_SECONDS) || undefined;
const db = createDb(process.env.DATABASE_URL ?? "", { poolSize: 2 });

process.on("message", (message: IngestRequest) => {
  const { runId } = message;
  ingestUpload({ db, runId, ...(rollupMinSeconds ? { rollupMinSeconds } : {}) })
    .then((outcome): IngestReply => ({ runId, outcome }))
    .catch((error: Error): IngestReply => ({ runId, error: error.message }))
    .then((reply) => process.send?.(reply));
});
