import { JOB_CELL_RUN, ZCellJob } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { DelayedError, type Job, UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import type { WorkerPlacements } from "./drivers/worker-placements.ts";
import type { WorkerEnv } from "./env.ts";
import { acquireHostLock } from "./host-lock.ts";
import type { Logger } from "./logger.ts";
import { findCellOwner } from "./presence.ts";
import { CellNotStarted, finishCell, publish, runCell } from "./run-cell.ts";
import { waitForServerBuilds } from "./wait-for-builds.ts";

/** The cell this worker runs now, so a user's cancel of its run reaches it. */
export type CurrentCell = { runId: string; cancel: AbortController } | null;

export type CellJobDeps = {
  db: Db;
  publisher: Redis;
  env: WorkerEnv;
  log: Logger;
  placements: WorkerPlacements;
  presence: { id: string; setCell: (cell: { id: string; runId: string } | null) => void };
  sweepBeforeCell: () => Promise<void>;
  shutdown: AbortSignal;
  setCurrent: (current: CurrentCell) => void;
};

/**
 * Runs one cell job: waits for the host (one cell per machine), for server builds, sweeps what dead
 * workers left, then runs the cell. Stopping before the cell started puts the job back in the queue.
 */
export function cellJobProcessor(deps: CellJobDeps) {
  const { log, presence, shutdown } = deps;
  return async (job: Job, token?: string) => {
    if (job.name !== JOB_CELL_RUN) throw new UnrecoverableError(`unknown job ${job.name}`);
    const parsed = ZCellJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
    const { cellId, runId } = parsed.data;
    presence.setCell({ id: cellId, runId });
    // Stopping before the cell started is not a failure of the cell: it goes back to the queue.
    const requeue = async () => {
      await job.moveToDelayed(Date.now(), token);
      log.info({ cellId }, "worker stopping: the cell goes back to the queue");
      throw new DelayedError();
    };
    let lock: Awaited<ReturnType<typeof acquireHostLock>>;
    try {
      lock = await acquireHostLock({
        redis: deps.publisher,
        hostId: await deps.placements.lockHostFor(cellId),
        signal: shutdown,
        onWait: () => log.info({ cellId }, "waiting for the host: another cell is running"),
      });
    } catch (error) {
      // Not waiting for the cell any more: no stale claim on it may outlive this (a reconciler
      // leaves a cell alone while a live worker names it).
      presence.setCell(null);
      if (shutdown.aborted) return await requeue();
      throw error;
    }
    try {
      await runWithHost(deps, { cellId, runId, lost: lock.lost }, requeue);
    } finally {
      deps.setCurrent(null);
      presence.setCell(null);
      await lock.release();
    }
  };
}

async function runWithHost(
  deps: CellJobDeps,
  job: { cellId: string; runId: string; lost: AbortSignal },
  requeue: () => Promise<never>,
): Promise<void> {
  const { db, publisher, env, log, placements, shutdown } = deps;
  const { cellId, runId } = job;
  try {
    if (shutdown.aborted) return await requeue();
    // A cancel reaches a cell from here on: one held for builds stops waiting (the web app has
    // already marked it cancelled, so runCell skips it) instead of holding the host until they end.
    const cancel = new AbortController();
    deps.setCurrent({ runId, cancel });
    await waitForServerBuilds({
      buildDir: env.PERFLAB_BUILD_DIR,
      signal: AbortSignal.any([shutdown, cancel.signal]),
      onWait: async (building) => {
        const stage = `waiting for server builds to end: ${building.join(", ")}`;
        log.info({ cellId, building }, stage);
        await publish({ publisher, log }, runId, { type: "cell", cellId, status: "queued", stage });
      },
    });
    if (shutdown.aborted) return await requeue();
    await deps.sweepBeforeCell();
    if (shutdown.aborted) return await requeue();
    await runCell(
      {
        db,
        publisher,
        env,
        drivers: placements.drivers,
        fixtures: placements.fixtures,
        k6: placements.k6,
        k6Version: placements.k6Version,
        engine: placements.engine,
        log,
        // A live owner rewrites its presence every 5 s: one that lapsed while Redis was away is back by then.
        cellOwner: (id) =>
          findCellOwner({ redis: publisher, cellId: id, selfId: deps.presence.id, waitMs: 7_000 }),
      },
      { cellId, signal: AbortSignal.any([shutdown, job.lost, cancel.signal]) },
    );
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    // Stopped before runCell claimed the cell: nothing ran, so the cell goes back to the queue.
    if (error instanceof CellNotStarted) return await requeue();
    // runCell records every failure it can name; this is what escaped it (the database went
    // away mid-cell, say). Record it if the database answers; if not, the reconciler will.
    await finishCell({ db, publisher, log }, cellId, runId, {
      status: "failed",
      error: `internal error: ${(error as Error).message}`,
    }).catch((recordError) => log.error({ cellId, err: recordError }, "could not record the cell's failure"));
    throw error;
  }
}
