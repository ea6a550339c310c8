import { setTimeout as sleep } from "node:timers/promises";
import {
  CANCEL_CHANNEL,
  JOB_CELL_RUN,
  QUEUE_CELLS,
  type TCellJob,
  ZCancelMessage,
  ZCellJob,
} from "@perflab/contracts";
import { backfillRollups, createDb } from "@perflab/db";
import { DelayedError, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import {
  createDockerDriver,
  dockerAt,
  fixturesImageTag,
  k6ImageTag,
  LABEL_INSTANCE,
  LABEL_OWNER,
} from "./drivers/docker.ts";
import { localDriver } from "./drivers/local.ts";
import { ownerMarker, reapOrphanProcesses } from "./drivers/orphans.ts";
import type { Driver, DriverId } from "./drivers/types.ts";
import type { WorkerEnv } from "./env.ts";
import { engineIsLocal } from "./host.ts";
import { claimHostId } from "./host-claim.ts";
import { acquireHostLock } from "./host-lock.ts";
import { startIngestWorker } from "./ingest/ingest-worker.ts";
import type { Logger } from "./logger.ts";
import { announceWorker, findCellOwner } from "./presence.ts";
import { reconcileCells } from "./reconcile.ts";
import { CellCancelled, type CellDeps, CellNotStarted, finishCell, publish, runCell } from "./run-cell.ts";
import { EngineFixtures } from "./stages/engine-fixtures.ts";
import { Fixtures } from "./stages/fixtures.ts";
import { createDockerK6Runner, createLocalK6Runner, type K6Runner } from "./stages/k6.ts";
import { waitForServerBuilds } from "./wait-for-builds.ts";

/** Why a cell whose worker died ends: said by whichever worker of the host finds what it left. */
export const ORPHANED_CELL =
  "the worker running this cell died; the server and k6 it left (processes or containers) were removed by a worker of this host";

/**
 * A server registered only as a prebuilt image (perflab.json `image`, no `start.command`) has nothing
 * a process driver could start: its cells fail saying so instead of spawning nothing.
 */
export function withoutImageOnly(driver: Driver): Driver {
  return {
    ...driver,
    async start(request) {
      const { server } = request;
      if (server.start.command.length === 0) {
        throw new Error(
          `${server.base} is registered as the prebuilt image ${server.image ?? "(none)"} and its perflab.json has no start.command, so it runs under the docker driver only`,
        );
      }
      return driver.start(request);
    },
  };
}

/**
 * Starts the cell worker: one cell at a time per process, and per host through the host lock.
 * Returns `close`: the current cell is stopped (k6 and server, recorded as failed with the reason) so
 * shutdown is bounded, then worker → Redis → database close.
 */
export async function startRuntime(env: WorkerEnv, log: Logger): Promise<{ close: () => Promise<void> }> {
  const db = createDb(env.DATABASE_URL);
  // BullMQ's blocking connection must retry forever; the publisher and lock client fail fast.
  const workerConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  const publisher = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
  workerConnection.on("error", (error) => log.warn({ err: error }, "redis (worker) error"));
  publisher.on("error", (error) => log.warn({ err: error }, "redis (publisher) error"));
  let worker: Worker | undefined;
  // Before anything is swept or taken: a second machine under the same host id stops here, named.
  const hostClaim = await claimHostId({
    redis: publisher,
    hostId: env.PERFLAB_HOST_ID,
    // Another machine took the id while this one could not renew it: both would reap each other's
    // servers, so this one takes no further cell (a restart lets exactly one machine claim it).
    onConflict: (others) => {
      log.error(
        { hostId: env.PERFLAB_HOST_ID, otherMachines: others },
        "another machine's worker uses this PERFLAB_HOST_ID: taking no more cells; give each machine its own and restart",
      );
      void worker?.pause(true).catch(() => undefined);
    },
  }).catch(async (error: Error) => {
    await Promise.allSettled([workerConnection.quit(), publisher.quit()]);
    await db.$disconnect();
    throw error;
  });

  // An engine on another machine: its servers get k6, fixtures and a probe on that machine too.
  const remoteEngine = !engineIsLocal(env.DOCKER_HOST ?? "");
  const fixturesImage = () => fixturesImageTag(env.PERFLAB_FIXTURES_DIR);
  const dockerDriver = createDockerDriver({
    docker: dockerAt(env.DOCKER_HOST),
    hostId: env.PERFLAB_HOST_ID,
    cpuset: env.PERFLAB_DOCKER_CPUSET,
    ...(remoteEngine ? { remote: { probeImage: fixturesImage } } : {}),
  });
  const dockerK6 = async () =>
    createDockerK6Runner({
      docker: dockerDriver.docker,
      instance: dockerDriver.instance,
      image: env.PERFLAB_K6_IMAGE ?? (await k6ImageTag(env.PERFLAB_K6_SOURCE_DIR)),
    });
  const k6: K6Runner =
    env.PERFLAB_K6_RUNNER === "docker" ? await dockerK6() : createLocalK6Runner(env.PERFLAB_K6_BIN);
  // A missing binary or image stops the worker here, with the command that provides it.
  const version = await k6.version();
  const drivers: Record<DriverId, Driver> = { local: withoutImageOnly(localDriver), docker: dockerDriver };
  const fixtures = new Fixtures({
    fixturesDir: env.PERFLAB_FIXTURES_DIR,
    labDatabaseUrl: env.DATABASE_URL,
    apiUrl: env.PERFLAB_FIXTURE_API_URL,
    hostId: env.PERFLAB_HOST_ID,
    log,
  });
  let engine: CellDeps["engine"] = null;
  if (remoteEngine) {
    let engineK6: ReturnType<NonNullable<CellDeps["engine"]>["k6"]> | null = null;
    engine = {
      k6: () => {
        engineK6 ??= (async () => {
          const runner = k6.kind === "docker" ? k6 : await dockerK6();
          return { runner, version: await runner.version() };
        })();
        engineK6.catch(() => {
          engineK6 = null;
        });
        return engineK6;
      },
      fixtures: new EngineFixtures({
        docker: dockerDriver.docker,
        image: fixturesImage,
        labels: { [LABEL_OWNER]: ownerMarker(env.PERFLAB_HOST_ID), [LABEL_INSTANCE]: dockerDriver.instance },
        log,
      }),
    };
  }
  /**
   * The machine a cell loads, for the host lock: a cell on a remote engine runs on the engine's
   * machine, which workers on other hosts may share.
   */
  let engineId: Promise<string> | null = null;
  const lockHostFor = async (cellId: string): Promise<string> => {
    if (!remoteEngine) return env.PERFLAB_HOST_ID;
    const cell = await db.cell.findUnique({ where: { id: cellId }, select: { driver: true } });
    if (cell?.driver !== "docker") return env.PERFLAB_HOST_ID;
    engineId ??= dockerDriver.docker.info().then((info: { ID: string }) => `engine:${info.ID}`);
    return engineId.catch(() => {
      engineId = null;
      return env.PERFLAB_HOST_ID;
    });
  };

  /**
   * Kills what dead workers of this host left (servers, k6, fixtures: processes by their owner
   * marker, containers by their owner label) and fails the cells they ran. Live workers' are kept.
   */
  const sweepOrphans = async (containers: Promise<string[]>) => {
    const orphanCells = new Set([...(await reapOrphanProcesses(env.PERFLAB_HOST_ID)), ...(await containers)]);
    for (const cellId of orphanCells) {
      const cell = await db.cell.findUnique({ where: { id: cellId } });
      if (cell?.status === "running") {
        await finishCell({ db, publisher, log }, cell.id, cell.runId, {
          status: "failed",
          error: ORPHANED_CELL,
        });
      }
      log.warn({ cellId }, "removed processes left by a dead worker");
    }
  };
  // Without an engine only docker cells fail (with the reason); local cells still run.
  let dockerReachable = true;
  await sweepOrphans(
    dockerDriver.removeOrphans().catch((error) => {
      dockerReachable = false;
      log.warn({ err: error }, "Docker engine unreachable: docker cells will fail");
      return [] as string[];
    }),
  );
  /**
   * Before every cell, with the host lock held: a worker killed mid-cell (kill -9) leaves its k6 and
   * server loading the machine, and the next cell here must not be measured beside them. Containers
   * only when the engine answered at start: a worker without one pays nothing for it.
   */
  const sweepBeforeCell = () =>
    sweepOrphans(
      dockerReachable
        ? Promise.race([
            dockerDriver.removeOrphans(),
            sleep(10_000, undefined, { ref: false }).then(() => {
              throw new Error("the Docker engine did not list containers within 10 s");
            }),
          ]).catch((error: Error) => {
            log.warn({ err: error }, "could not look for containers left by dead workers");
            return [] as string[];
          })
        : Promise.resolve([]),
    ).catch((error: Error) => log.warn({ err: error }, "could not remove what dead workers left"));

  const shutdown = new AbortController();
  // A run cancelled in the web app: its running cell here is stopped at once (see cancel-run.ts).
  let current: { runId: string; cancel: AbortController } | null = null;
  const subscriber = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
  subscriber.on("error", (error) => log.warn({ err: error }, "redis (cancel subscriber) error"));
  subscriber.on("message", (_channel, message) => {
    let parsed: ReturnType<typeof ZCancelMessage.safeParse>;
    try {
      parsed = ZCancelMessage.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (parsed.success && current?.runId === parsed.data.runId) {
      log.info({ runId: parsed.data.runId }, "run cancelled: stopping its cell");
      current.cancel.abort(new CellCancelled("cancelled by a user"));
    }
  });
  await subscriber.subscribe(CANCEL_CHANNEL);
  // Seen by the web app (GET /api/v1/workers): who takes queued cells, and whether docker cells can
  // run. Before the worker takes its first job, so a cell taken at once is listed as its cell.
  const presence = await announceWorker({
    redis: publisher,
    hostId: env.PERFLAB_HOST_ID,
    k6: { version, runner: k6.kind },
    engine: remoteEngine ? "remote" : "local",
    dockerVersion: () => dockerDriver.docker.version(),
  });
  // Long cells a stopped worker left without rollups (a shutdown skips them): written before this
  // worker takes a cell, so no measurement shares the host with the work.
  const backfill = await backfillRollups(db, { minSeconds: env.PERFLAB_ROLLUP_MIN_SECONDS }).catch(
    (error: Error) => {
      log.warn({ err: error }, "could not look for long cells without rollups");
      return null;
    },
  );
  if (backfill?.rolledUp) log.info({ cells: backfill.rolledUp }, "rolled up long cells that lacked rollups");
  for (const f of backfill?.failed ?? [])
    log.warn({ cellId: f.cellId, error: f.error }, "could not roll up a cell");
  worker = new Worker(
    QUEUE_CELLS,
    async (job, token) => {
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
          redis: publisher,
          hostId: await lockHostFor(cellId),
          signal: shutdown.signal,
          onWait: () => log.info({ cellId }, "waiting for the host: another cell is running"),
        });
      } catch (error) {
        // Not waiting for the cell any more: no stale claim on it may outlive this (a reconciler
        // leaves a cell alone while a live worker names it).
        presence.setCell(null);
        if (shutdown.signal.aborted) return await requeue();
        throw error;
      }
      try {
        if (shutdown.signal.aborted) return await requeue();
        // A cancel reaches a cell from here on: one held for builds stops waiting (the web app has
        // already marked it cancelled, so runCell skips it) instead of holding the host until they end.
        const cancel = new AbortController();
        current = { runId, cancel };
        await waitForServerBuilds({
          buildDir: env.PERFLAB_BUILD_DIR,
          signal: AbortSignal.any([shutdown.signal, cancel.signal]),
          onWait: async (building) => {
            const stage = `waiting for server builds to end: ${building.join(", ")}`;
            log.info({ cellId, building }, stage);
            await publish({ publisher, log }, runId, { type: "cell", cellId, status: "queued", stage });
          },
        });
        if (shutdown.signal.aborted) return await requeue();
        await sweepBeforeCell();
        if (shutdown.signal.aborted) return await requeue();
        await runCell(
          {
            db,
            publisher,
            env,
            drivers,
            fixtures,
            k6,
            k6Version: version,
            engine,
            log,
            // A live owner rewrites its presence every 5 s: one that lapsed while Redis was away is back by then.
            cellOwner: (id) =>
              findCellOwner({ redis: publisher, cellId: id, selfId: presence.id, waitMs: 7_000 }),
          },
          { cellId, signal: AbortSignal.any([shutdown.signal, lock.lost, cancel.signal]) },
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
        }).catch((recordError) =>
          log.error({ cellId, err: recordError }, "could not record the cell's failure"),
        );
        throw error;
      } finally {
        current = null;
        presence.setCell(null);
        await lock.release();
      }
    },
    {
      connection: workerConnection,
      concurrency: 1,
      // A killed worker's job comes back after its lock expires; runCell then records why the cell
      // failed. Several stalls are allowed so a worker paused by a busy host is not failed twice.
      maxStalledCount: 5,
      lockDuration: 30_000,
    },
  );
  worker.on("error", (error) => log.error({ err: error }, "worker error"));
  worker.on("failed", (job, error) => log.error({ jobId: job?.id, err: error }, "job failed"));
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

  // Cells Postgres calls pending that no job will run: repaired at start, then every minute.
  const queue = new Queue<TCellJob>(QUEUE_CELLS, { connection: publisher });
  queue.on("error", (error) => log.warn({ err: error }, "redis (queue) error"));
  // One pass at a time: a pass waits for the owners of stranded running cells.
  let reconciling: Promise<unknown> | null = null;
  const reconcile = () => (reconciling ??= reconcilePass().finally(() => (reconciling = null)));
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
  await reconcile();
  const reconcileTimer = setInterval(() => void reconcile(), env.PERFLAB_RECONCILE_INTERVAL_MS);
  log.info(
    {
      hostId: env.PERFLAB_HOST_ID,
      k6: version,
      k6Runner: k6.kind,
      dockerEngine: remoteEngine ? "remote" : "local",
    },
    "worker ready",
  );

  return {
    async close() {
      shutdown.abort();
      await presence.stop();
      clearInterval(reconcileTimer);
      hostClaim.stop();
      await ingest.close();
      await worker.close();
      await queue.close().catch(() => undefined);
      await fixtures.close();
      await engine?.fixtures.close();
      await Promise.allSettled([workerConnection.quit(), publisher.quit(), subscriber.quit()]);
      await db.$disconnect();
    },
  };
}
