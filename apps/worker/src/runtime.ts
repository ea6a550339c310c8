import {
  CANCEL_CHANNEL,
  QUEUE_CELLS,
  QUEUE_INGEST,
  type TCellJob,
  type TIngestJob,
  ZCancelMessage,
} from "@perflab/contracts";
import { backfillRollups, createDb, type Db } from "@perflab/db";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { type CurrentCell, cellJobProcessor } from "./cell-job.ts";
import { createWorkerPlacements } from "./drivers/worker-placements.ts";
import type { WorkerEnv } from "./env.ts";
import { claimHostId } from "./host-claim.ts";
import { startIngestWorker } from "./ingest/ingest-worker.ts";
import { reconcileUploads, type UploadProgress } from "./ingest/reconcile-uploads.ts";
import type { Logger } from "./logger.ts";
import { startOrphanSweeps } from "./orphan-sweep.ts";
import { announceWorker, findCellOwner } from "./presence.ts";
import { reconcileCells } from "./reconcile.ts";
import { CellCancelled } from "./run-cell.ts";

export { ORPHANED_CELL } from "./orphan-sweep.ts";

/**
 * Starts the cell worker: one cell at a time per process, and per host through the host lock.
 * Returns `close`: the current cell is stopped (k6 and server, recorded as failed with the reason) so
 * shutdown is bounded, then worker → Redis → database close.
 */
export async function startRuntime(env: WorkerEnv, log: Logger): Promise<{ close: () => Promise<void> }> {
  const { db, workerConnection, publisher } = openConnections(env, log);
  let worker: Worker | undefined;
  // Before anything is swept or taken: a second machine under the same host id stops here, named.
  const hostClaim = await claimHost(env, log, { db, workerConnection, publisher }, () => worker);
  const placements = await createWorkerPlacements(env, log, db);
  const sweeps = await startOrphanSweeps({
    db,
    publisher,
    log,
    hostId: env.PERFLAB_HOST_ID,
    removeOrphanContainers: placements.removeOrphanContainers,
  });
  const shutdown = new AbortController();
  // A run cancelled in the web app: its running cell here is stopped at once (see cancel-run.ts).
  let current: CurrentCell = null;
  const subscriber = await listenForCancels(env, log, () => current);
  // Seen by the web app (GET /api/v1/workers): who takes queued cells, and whether docker cells can
  // run. Before the worker takes its first job, so a cell taken at once is listed as its cell.
  const presence = await announceWorker({
    redis: publisher,
    hostId: env.PERFLAB_HOST_ID,
    k6: { version: placements.k6Version, runner: placements.k6.kind },
    engine: placements.engineKind,
    dockerVersion: placements.dockerVersion,
  });
  await backfillLongCells(db, env, log);
  worker = createCellWorker(
    workerConnection,
    log,
    cellJobProcessor({
      db,
      publisher,
      env,
      log,
      placements,
      presence,
      sweepBeforeCell: sweeps.beforeCell,
      shutdown: shutdown.signal,
      setCurrent: (cell) => {
        current = cell;
      },
    }),
  );
  await worker.waitUntilReady();
  // Uploads' ingest: its own queue and worker, decoding at the lowest priority beside the cells.
  const ingest = await startIngestWorker({
    db,
    redisUrl: env.REDIS_URL,
    databaseUrl: env.DATABASE_URL,
    rollupMinSeconds: env.PERFLAB_ROLLUP_MIN_SECONDS,
    publisher,
    log,
  });
  const reconciler = await startReconciler({ db, publisher, env, log });
  log.info(
    {
      hostId: env.PERFLAB_HOST_ID,
      k6: placements.k6Version,
      k6Runner: placements.k6.kind,
      dockerEngine: placements.engineKind,
    },
    "worker ready",
  );

  return {
    async close() {
      shutdown.abort();
      await presence.stop();
      reconciler.stopTimer();
      hostClaim.stop();
      await ingest.close();
      await worker.close();
      await reconciler.closeQueue();
      await placements.close();
      await Promise.allSettled([workerConnection.quit(), publisher.quit(), subscriber.quit()]);
      await db.$disconnect();
    },
  };
}

/** The cells' queue worker: one cell at a time in this process. */
function createCellWorker(
  connection: Redis,
  log: Logger,
  processor: ReturnType<typeof cellJobProcessor>,
): Worker {
  const worker = new Worker(QUEUE_CELLS, processor, {
    connection,
    concurrency: 1,
    // A killed worker's job comes back after its lock expires; runCell then records why the cell
    // failed. Several stalls are allowed so a worker paused by a busy host is not failed twice.
    maxStalledCount: 5,
    lockDuration: 30_000,
  });
  worker.on("error", (error) => log.error({ err: error }, "worker error"));
  worker.on("failed", (job, error) => log.error({ jobId: job?.id, err: error }, "job failed"));
  return worker;
}

type Connections = { db: Db; workerConnection: Redis; publisher: Redis };

function openConnections(env: WorkerEnv, log: Logger): Connections {
  const db = createDb(env.DATABASE_URL);
  // BullMQ's blocking connection must retry forever; the publisher and lock client fail fast.
  const workerConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const publisher = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  workerConnection.on("error", (error) => log.warn({ err: error }, "redis (worker) error"));
  publisher.on("error", (error) => log.warn({ err: error }, "redis (publisher) error"));
  return { db, workerConnection, publisher };
}

/** This machine's claim on its host id; the connections close when another machine holds it. */
function claimHost(env: WorkerEnv, log: Logger, connections: Connections, worker: () => Worker | undefined) {
  const { db, workerConnection, publisher } = connections;
  return claimHostId({
    redis: publisher,
    hostId: env.PERFLAB_HOST_ID,
    // Another machine took the id while this one could not renew it: both would reap each other's
    // servers, so this one takes no further cell (a restart lets exactly one machine claim it).
    onConflict: (others) => {
      log.error(
        { hostId: env.PERFLAB_HOST_ID, otherMachines: others },
        "another machine's worker uses this PERFLAB_HOST_ID: taking no more cells; give each machine its own and restart",
      );
      void worker()
        ?.pause(true)
        .catch(() => undefined);
    },
  }).catch(async (error: Error) => {
    await Promise.allSettled([workerConnection.quit(), publisher.quit()]);
    await db.$disconnect();
    throw error;
  });
}

/** Stops the current cell when a user cancels its run in the web app. */
async function listenForCancels(env: WorkerEnv, log: Logger, current: () => CurrentCell): Promise<Redis> {
  const subscriber = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  subscriber.on("error", (error) => log.warn({ err: error }, "redis (cancel subscriber) error"));
  subscriber.on("message", (_channel, message) => {
    let parsed: ReturnType<typeof ZCancelMessage.safeParse>;
    try {
      parsed = ZCancelMessage.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    const cell = current();
    if (parsed.success && cell?.runId === parsed.data.runId) {
      log.info({ runId: parsed.data.runId }, "run cancelled: stopping its cell");
      cell.cancel.abort(new CellCancelled("cancelled by a user"));
    }
  });
  await subscriber.subscribe(CANCEL_CHANNEL);
  return subscriber;
}

/**
 * Long cells a stopped worker left without rollups (a shutdown skips them): written before this
 * worker takes a cell, so no measurement shares the host with the work.
 */
async function backfillLongCells(db: Db, env: WorkerEnv, log: Logger): Promise<void> {
  const backfill = await backfillRollups(db, { minSeconds: env.PERFLAB_ROLLUP_MIN_SECONDS }).catch(
    (error: Error) => {
      log.warn({ err: error }, "could not look for long cells without rollups");
      return null;
    },
  );
  if (backfill?.rolledUp) log.info({ cells: backfill.rolledUp }, "rolled up long cells that lacked rollups");
  for (const f of backfill?.failed ?? [])
    log.warn({ cellId: f.cellId, error: f.error }, "could not roll up a cell");
}

/** Cells Postgres calls pending that no job will run: repaired at start, then every interval. */
async function startReconciler(deps: { db: Db; publisher: Redis; env: WorkerEnv; log: Logger }) {
  const { db, publisher, env, log } = deps;
  const queue = new Queue<TCellJob>(QUEUE_CELLS, { connection: publisher });
  queue.on("error", (error) => log.warn({ err: error }, "redis (queue) error"));
  // One pass at a time: a pass waits for the owners of stranded running cells.
  let reconciling: Promise<unknown> | null = null;
  const reconcilePass = () =>
    reconcileCells(
      {
        db,
        queue,
        publisher,
        log,
        // Any live worker's, this one's included: a cell whose job came back and was completed by
        // another worker is still being measured by the worker that announces it.
        cellOwner: (id) => findCellOwner({ redis: publisher, cellId: id, selfId: "", waitMs: 7_000 }),
      },
      { graceMs: env.PERFLAB_RECONCILE_GRACE_MS },
    ).catch((error) => log.warn({ err: error }, "could not check for stranded cells; will try again"));
  // Uploads no ingest job will take, beside the cells: their pass keeps how far each body had come.
  const ingestQueue = new Queue<TIngestJob>(QUEUE_INGEST, { connection: publisher });
  ingestQueue.on("error", (error) => log.warn({ err: error }, "redis (ingest queue) error"));
  const uploads: UploadProgress = new Map();
  const uploadsPass = () =>
    reconcileUploads({ db, queue: ingestQueue, publisher, log }, uploads, {
      graceMs: env.PERFLAB_RECONCILE_GRACE_MS,
    }).catch((error) => log.warn({ err: error }, "could not check for stranded uploads; will try again"));
  const reconcile = () =>
    (reconciling ??= Promise.all([reconcilePass(), uploadsPass()]).finally(() => (reconciling = null)));
  await reconcile();
  const timer = setInterval(() => void reconcile(), env.PERFLAB_RECONCILE_INTERVAL_MS);
  return {
    stopTimer: () => clearInterval(timer),
    closeQueue: () => Promise.all([queue.close(), ingestQueue.close()]).catch(() => undefined),
  };
}
