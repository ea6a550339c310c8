import { CELL_JOB_OPTIONS, JOB_CELL_RUN, type TCellJob } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "./logger.ts";
import { finishCell } from "./run-cell.ts";

/** Job states in which a worker will still take the cell, or is running it now. */
export const LIVE_STATES = new Set([
  "waiting",
  "wait",
  "delayed",
  "prioritized",
  "active",
  "waiting-children",
]);

/**
 * Finds cells that Postgres says are pending but that no job will ever run, and repairs them, so no
 * cell waits forever without a word: a queued cell whose job is missing (the web app died between
 * committing the run and enqueueing it, or Redis lost its data) or already ended (a worker failed
 * before the cell started) is enqueued again; a running cell whose job is no longer active was
 * abandoned mid-measurement and ends `failed` with that reason. Only runs older than `graceMs` are
 * looked at, so a run being created right now is left to its creator. Idempotent: every worker runs
 * it at start and then periodically.
 */
export async function reconcileCells(
  deps: {
    db: Db;
    queue: Queue<TCellJob>;
    publisher: Redis;
    log: Logger;
    /**
     * The live worker that announces a cell as its own, if one does. A running cell's job can end
     * while its worker still measures it: Redis away longer than the job's lock hands the job to
     * another worker, which leaves the cell to its owner and completes the job.
     */
    cellOwner?: (cellId: string) => Promise<string | null>;
  },
  options: { graceMs?: number; limit?: number } = {},
): Promise<{ requeued: string[]; failed: string[] }> {
  const { db, queue, log } = deps;
  const cutoff = new Date(Date.now() - (options.graceMs ?? 60_000));
  const cells = await db.cell.findMany({
    where: { status: { in: ["queued", "running"] }, run: { createdAt: { lt: cutoff } } },
    select: { id: true, runId: true, status: true },
    orderBy: [{ runId: "asc" }, { index: "asc" }],
    take: options.limit ?? 500,
  });
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const cell of cells) {
    const job = await queue.getJob(cell.id);
    const state = job ? await job.getState() : "missing";
    if (LIVE_STATES.has(state)) continue;
    if (cell.status === "queued") {
      // An ended job keeps its id for days; it must go before the same id can be added again.
      if (job) await job.remove().catch(() => undefined);
      await queue.add(
        JOB_CELL_RUN,
        { runId: cell.runId, cellId: cell.id },
        { ...CELL_JOB_OPTIONS, jobId: cell.id },
      );
      requeued.push(cell.id);
      log.warn({ cellId: cell.id, jobState: state }, "re-enqueued a queued cell that had no pending job");
    } else {
      const owner = await deps.cellOwner?.(cell.id).catch(() => null);
      if (owner) {
        log.info(
          { cellId: cell.id, owner, jobState: state },
          "a running cell without a live job is still measured by its worker",
        );
        continue;
      }
      await finishCell(deps, cell.id, cell.runId, {
        status: "failed",
        error: `no worker was running this cell any more (its job was ${state}); the measurement was incomplete and not kept`,
      });
      failed.push(cell.id);
      log.warn({ cellId: cell.id, jobState: state }, "failed a running cell that no worker was running");
    }
  }
  return { requeued, failed };
}
