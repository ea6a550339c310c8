import { JOB_UPLOAD_INGEST, QUEUE_INGEST, runChannel, type TLiveEvent, ZIngestJob } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { DelayedError, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import { createIngestProcess } from "./ingest-process.ts";
import { failRun, type IngestOutcome } from "./ingest-upload.ts";

/**
 * Takes uploads' ingest jobs, one at a time, each decoded in a child process at the lowest
 * scheduling priority, and tells the run's page how it ended. Independent of the cell worker and the
 * host lock: an ingest runs beside a benchmark without disturbing it.
 */
export async function startIngestWorker({
  db,
  redisUrl,
  databaseUrl,
  rollupMinSeconds,
  publisher,
  log,
}: {
  db: Db;
  redisUrl: string;
  databaseUrl: string;
  rollupMinSeconds: number;
  publisher: Redis;
  log: Logger;
}): Promise<{ close: () => Promise<void> }> {
  const shutdown = new AbortController();
  const ingestProcess = createIngestProcess({
    DATABASE_URL: databaseUrl,
    PERFLAB_ROLLUP_MIN_SECONDS: String(rollupMinSeconds),
  });
  // BullMQ's blocking connection must retry forever.
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connection.on("error", (error) => log.warn({ err: error }, "redis (ingest worker) error"));
  const worker = new Worker(
    QUEUE_INGEST,
    async (job, token) => {
      if (job.name !== JOB_UPLOAD_INGEST) throw new UnrecoverableError(`unknown job ${job.name}`);
      const parsed = ZIngestJob.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
      const { runId } = parsed.data;
      log.info({ runId }, "ingesting an upload");
      const outcome = await ingestProcess
        .ingest(runId)
        .catch(async (error: Error): Promise<IngestOutcome> => {
          // Stopping: nothing was committed, so the job goes back to the queue and starts over.
          if (shutdown.signal.aborted) {
            await job.moveToDelayed(Date.now(), token);
            throw new DelayedError();
          }
          log.error({ runId, err: error }, "ingest failed");
          return failRun(db, runId, `internal error: ${error.message}`);
        });
      log.info({ runId, ...outcome }, "upload ingested");
      await announce(publisher, runId, outcome, log);
    },
    { connection, concurrency: 1, maxStalledCount: 2, lockDuration: 60_000 },
  );
  worker.on("error", (error) => log.error({ err: error }, "ingest worker error"));
  worker.on("failed", (job, error) => log.error({ jobId: job?.id, err: error }, "ingest job failed"));
  await worker.waitUntilReady();
  return {
    async close() {
      shutdown.abort();
      // An ingest under way stops here; its job goes back to the queue (see above).
      ingestProcess.close();
      await worker.close();
      await connection.quit().catch(() => undefined);
    },
  };
}

/** The run's page, if open, learns the run ended (and reloads it). */
export async function announce(publisher: Redis, runId: string, outcome: IngestOutcome, log: Logger) {
  if (outcome.status === "gone") return;
  const done = outcome.status === "succeeded" ? 1 : 0;
  const event: TLiveEvent = {
    type: "run",
    runId,
    status: outcome.status,
    cellsDone: done,
    cellsTotal: done,
  };
  await publisher.publish(runChannel(runId), JSON.stringify(event)).catch((error) => {
    log.warn({ runId, err: error }, "could not publish the ingested run's status");
  });
}
