import { JOB_CELL_RUN, QUEUE_CELLS, ZCellJob } from "@perflab/contracts";
import { createDb } from "@perflab/db";
import { UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { createDockerDriver, k6ImageTag } from "./drivers/docker.ts";
import { localDriver } from "./drivers/local.ts";
import { reapOrphanProcesses } from "./drivers/orphans.ts";
import type { Driver, DriverId } from "./drivers/types.ts";
import type { WorkerEnv } from "./env.ts";
import { acquireHostLock } from "./host-lock.ts";
import type { Logger } from "./logger.ts";
import { finishCell, runCell } from "./run-cell.ts";
import { Fixtures } from "./stages/fixtures.ts";
import { createDockerK6Runner, createLocalK6Runner, type K6Runner } from "./stages/k6.ts";

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

  const dockerDriver = createDockerDriver({ hostId: env.PERFLAB_HOST_ID, cpuset: env.PERFLAB_DOCKER_CPUSET });
  const k6: K6Runner =
    env.PERFLAB_K6_RUNNER === "docker"
      ? createDockerK6Runner({
          docker: dockerDriver.docker,
          instance: dockerDriver.instance,
          image: env.PERFLAB_K6_IMAGE ?? (await k6ImageTag(env.PERFLAB_K6_SOURCE_DIR)),
        })
      : createLocalK6Runner(env.PERFLAB_K6_BIN);
  // A missing binary or image stops the worker here, with the command that provides it.
  const version = await k6.version();
  const drivers: Record<DriverId, Driver> = { local: localDriver, docker: dockerDriver };
  const fixtures = new Fixtures({
    fixturesDir: env.PERFLAB_FIXTURES_DIR,
    labDatabaseUrl: env.DATABASE_URL,
    apiUrl: env.PERFLAB_FIXTURE_API_URL,
    log,
  });

  // Without an engine only docker cells fail (with the reason); local cells still run.
  const orphanContainers = await dockerDriver.removeOrphans().catch((error) => {
    log.warn({ err: error }, "Docker engine unreachable: docker cells will fail");
    return [] as string[];
  });
  const orphanCells = new Set([...(await reapOrphanProcesses(env.PERFLAB_HOST_ID)), ...orphanContainers]);
  for (const cellId of orphanCells) {
    const cell = await db.cell.findUnique({ where: { id: cellId } });
    if (cell?.status === "running") {
      await finishCell({ db, publisher, log }, cell.id, cell.runId, {
        status: "failed",
        error:
          "the worker running this cell died; the server and k6 it left (processes or containers) were removed on restart",
      });
    }
    log.warn({ cellId }, "removed processes left by a dead worker");
  }

  const shutdown = new AbortController();
  const worker = new Worker(
    QUEUE_CELLS,
    async (job) => {
      if (job.name !== JOB_CELL_RUN) throw new UnrecoverableError(`unknown job ${job.name}`);
      const parsed = ZCellJob.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`bad job payload: ${parsed.error.message}`);
      const lock = await acquireHostLock({
        redis: publisher,
        hostId: env.PERFLAB_HOST_ID,
        signal: shutdown.signal,
        onWait: () =>
          log.info({ cellId: parsed.data.cellId }, "waiting for the host: another cell is running"),
      });
      try {
        await runCell(
          { db, publisher, env, drivers, fixtures, k6, k6Version: version, log },
          { cellId: parsed.data.cellId, signal: shutdown.signal },
        );
      } finally {
        await lock.release();
      }
    },
    {
      connection: workerConnection,
      concurrency: 1,
      // A killed worker's job comes back once; runCell then records why the cell failed.
      maxStalledCount: 5,
      lockDuration: 30_000,
    },
  );
  worker.on("error", (error) => log.error({ err: error }, "worker error"));
  worker.on("failed", (job, error) => log.error({ jobId: job?.id, err: error }, "job failed"));
  await worker.waitUntilReady();
  log.info({ hostId: env.PERFLAB_HOST_ID, k6: version, k6Runner: k6.kind }, "worker ready");

  return {
    async close() {
      shutdown.abort();
      await worker.close();
      await fixtures.close();
      await Promise.allSettled([workerConnection.quit(), publisher.quit()]);
      await db.$disconnect();
    },
  };
}
