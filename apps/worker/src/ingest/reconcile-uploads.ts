import { INGEST_JOB_OPTIONS, JOB_UPLOAD_INGEST, type TIngestJob } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import { LIVE_STATES } from "../reconcile.ts";
import { failRun } from "./ingest-upload.ts";
import { announce } from "./ingest-worker.ts";

/** An upload's progress as a pass saw it: the chunks stored, to tell a stalled body from a slow one. */
export type UploadProgress = Map<string, number>;

/**
 * Uploads that no job will ingest, repaired so no run stays `ingesting` without a word. A body
 * stored whole (its size is written after its last chunk) whose job Redis lost or that ended without
 * ending the run is queued again. A body still arriving is left alone while it grows; one that has
 * not grown since the last pass was abandoned (the web app stopped mid-upload) and its run fails
 * with that reason, rather than a truncated output being stored as if whole.
 */
export async function reconcileUploads(
  deps: { db: Db; queue: Queue<TIngestJob>; publisher: Redis; log: Logger },
  progress: UploadProgress,
  options: { graceMs: number },
): Promise<{ requeued: string[]; failed: string[] }> {
  const { db, queue, log } = deps;
  const runs = await db.run.findMany({
    where: { status: "ingesting", createdAt: { lt: new Date(Date.now() - options.graceMs) } },
    select: { id: true, upload: { select: { bytes: true, _count: { select: { chunks: true } } } } },
    take: 100,
  });
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const run of runs) {
    const jobId = `ingest-${run.id}`;
    const job = await queue.getJob(jobId);
    const state = job ? await job.getState() : "missing";
    if (LIVE_STATES.has(state)) continue;
    if (run.upload && run.upload.bytes > 0n) {
      if (job) await job.remove().catch(() => undefined);
      await queue.add(JOB_UPLOAD_INGEST, { runId: run.id }, { ...INGEST_JOB_OPTIONS, jobId });
      requeued.push(run.id);
      log.warn({ runId: run.id, jobState: state }, "re-enqueued an upload whose ingest job was lost");
      continue;
    }
    const chunks = run.upload?._count.chunks ?? -1;
    if (run.upload && progress.get(run.id) !== chunks) {
      progress.set(run.id, chunks);
      continue;
    }
    progress.delete(run.id);
    const reason = run.upload
      ? "the upload stopped arriving before its body was stored whole (the web app stopped, or the client went away); upload it again"
      : "the upload's stored body is gone; upload it again";
    const outcome = await failRun(db, run.id, reason);
    if (outcome.status === "failed") {
      failed.push(run.id);
      log.warn({ runId: run.id }, reason);
    }
    await announce(deps.publisher, run.id, outcome, log);
  }
  return { requeued, failed };
}
