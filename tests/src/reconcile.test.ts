import path from "node:path";
import { JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { announceWorker, findCellOwner, logger, reconcileCells } from "@perflab/worker/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ROLLUP_LEVELS } from "../../packages/metrics/src/index.ts";
import { freePort, type Service, startRedis, startWorker } from "../../scripts/lib/services.ts";
import {
  ownWorkerEnv,
  queueRun,
  redisConnection,
  startOwnRedis,
  testDb,
  until,
  waitForRun,
} from "./helpers.ts";

const started: Service[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

describe("no pending cell is stranded", () => {
  it("re-enqueues a queued cell with no job or an ended job, and fails a running cell nobody runs", async () => {
    const db = testDb();
    // Each case in its own run; the grace period keeps the reconciler off runs being created now.
    const missing = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }], {
      enqueue: false,
    });
    const ended = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }], {
      enqueue: false,
    });
    const abandoned = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }], {
      enqueue: false,
    });
    const fresh = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }], {
      enqueue: false,
    });
    // A job that already ended under the cell's id (here it failed: a name no worker knows).
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection() });
    await queue.add(
      "unknown.job",
      { runId: ended.runId, cellId: ended.cellIds[0]! },
      { jobId: ended.cellIds[0]! },
    );
    await until(
      async () => (await queue.getJob(ended.cellIds[0]!))?.isFailed(),
      30_000,
      "the unknown job to fail",
    );
    await db.cell.update({
      where: { id: abandoned.cellIds[0]! },
      data: { status: "running", startedAt: new Date() },
    });
    // Its worker died after writing the summary, before stopping the server: no result stands.
    await db.cellSummary.create({
      data: {
        cellId: abandoned.cellIds[0]!,
        requests: 10n,
        errors: 0n,
        ops: 10n,
        httpRps: 5,
        opsRps: 5,
        windowStart: new Date(Date.now() - 2000),
        windowEnd: new Date(),
        windowSeconds: 2,
        histogram: "",
      },
    });
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await db.run.updateMany({
      where: { id: { in: [missing.runId, ended.runId, abandoned.runId] } },
      data: { createdAt: longAgo },
    });

    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      env: {
        PERFLAB_SERVERS_DIR: inject("serversDir"),
        PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work-reconcile"),
        PERFLAB_RECONCILE_GRACE_MS: String(5 * 60_000),
        PERFLAB_RECONCILE_INTERVAL_MS: "1000",
      },
    });
    started.push(worker);
    try {
      for (const { runId } of [missing, ended]) {
        const run = await waitForRun(runId, 90_000);
        expect(run.status).toBe("succeeded");
      }
      const run = await waitForRun(abandoned.runId, 30_000);
      expect(run.status).toBe("failed");
      const cell = await db.cell.findUniqueOrThrow({ where: { id: abandoned.cellIds[0]! } });
      expect(cell.status).toBe("failed");
      expect(cell.error).toMatch(/no worker was running this cell any more \(its job was missing\)/);
      expect(await db.cellSummary.count({ where: { cellId: cell.id } })).toBe(0);
      // Inside the grace period a run belongs to whoever is creating it: left alone.
      const untouched = await db.cell.findUniqueOrThrow({ where: { id: fresh.cellIds[0]! } });
      expect(untouched.status).toBe("queued");
      expect(await queue.getJob(fresh.cellIds[0]!)).toBeUndefined();
      expect(worker.exitReason()).toBeNull();
    } finally {
      await db.run.delete({ where: { id: fresh.runId } });
      await queue.close();
      // Its reconciler must not run on into the next test's passes.
      await worker.stop().catch(() => undefined);
    }
  });

  it("leaves a running cell whose job ended alone while a live worker announces it, and fails it once none does", async () => {
    const db = testDb();
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }],
      { enqueue: false },
    );
    const cellId = cellIds[0]!;
    // Redis was away longer than the job's lock: another worker got the job, found the cell's owner
    // and completed the job. The owner goes on measuring.
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection() });
    const publisher = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 3 });
    const log = logger.child({ test: "reconcile" });
    const owner = await announceWorker({
      redis: publisher,
      hostId: `reconcile-owner-${process.pid}`,
      k6: { version: "fake", runner: "local" },
      engine: "local",
      dockerVersion: async () => ({ Version: "fake" }),
    });
    const deps = {
      db,
      queue,
      publisher,
      log,
      cellOwner: (id: string) => findCellOwner({ redis: publisher, cellId: id, selfId: "", waitMs: 0 }),
    };
    // Only this run is old enough for these passes: other files' cells stay out of them.
    const onlyThisRun = { graceMs: Date.now() - Date.parse("2000-01-02T00:00:00Z") };
    try {
      // Announced before the cell reads as running and old: no worker's reconciler finds it ownerless.
      owner.setCell({ id: cellId, runId });
      await until(async () => (await deps.cellOwner(cellId)) === owner.id, 5_000, "the owner's presence");
      await db.cell.update({ where: { id: cellId }, data: { status: "running", startedAt: new Date() } });
      await db.run.update({ where: { id: runId }, data: { createdAt: new Date("2000-01-01T00:00:00Z") } });
      const kept = await reconcileCells(deps, onlyThisRun);
      expect(kept.failed).not.toContain(cellId);
      expect((await db.cell.findUniqueOrThrow({ where: { id: cellId } })).status).toBe("running");
      // The owner is gone (a killed worker's presence lapses the same way): failed, with why.
      await owner.stop();
      // This pass, or another worker's reconciler as soon: either fails it, with the same reason.
      await reconcileCells(deps, onlyThisRun);
      const failed = await db.cell.findUniqueOrThrow({ where: { id: cellId } });
      expect([failed.status, failed.error]).toEqual([
        "failed",
        "no worker was running this cell any more (its job was missing); the measurement was incomplete and not kept",
      ]);
    } finally {
      await owner.stop().catch(() => undefined);
      await queue.close();
      await publisher.quit();
    }
  });

  it("a worker stopped while its cell waits for the host puts the cell back in the queue", async () => {
    const dir = path.join(inject("tmpDir"), "reconcile-redis");
    const redis = await startRedis({ dir, port: await freePort() });
    started.push({ name: "redis", stop: () => redis.stop() });
    const hostId = "reconcile-host";
    const env = {
      PERFLAB_SERVERS_DIR: inject("serversDir"),
      PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work-reconcile-2"),
      PERFLAB_HOST_ID: hostId,
    };
    // Another cell "holds" the host.
    const client = new Redis(redis.url);
    await client.set(`perflab:host-lock:${hostId}`, "someone-else", "PX", 120_000);
    const logs: string[] = [];
    const first = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env,
      log: (line) => logs.push(line),
    });
    started.push(first);
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }],
      { redisUrl: redis.url },
    );
    await until(
      async () => logs.some((l) => l.includes("waiting for the host") && l.includes(cellIds[0]!)),
      60_000,
      "the worker to wait for the host",
    );
    await first.stop();
    expect(first.exitReason()).toMatch(/^worker exited \(0\)/);

    const db = testDb();
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    expect([cell.status, cell.error, cell.attempts]).toEqual(["queued", null, 0]);
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection(redis.url) });
    const job = await queue.getJob(cellIds[0]!);
    expect(job?.name).toBe(JOB_CELL_RUN);
    expect(["delayed", "waiting"]).toContain(await job!.getState());
    await queue.close();

    // The host frees up; the next worker runs the cell.
    await client.del(`perflab:host-lock:${hostId}`);
    await client.quit();
    const second = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(second);
    const run = await waitForRun(runId, 90_000);
    expect(run.status).toBe("succeeded");
  });
});

describe("a worker's start", () => {
  it("rolls up the long cells a stopped worker left without rollups, before it takes a cell", async () => {
    const db = testDb();
    // A finished cell of more than 4 s (the suite's worker rolls those up), its rollups gone as if
    // its worker had been shut down right after writing its end.
    const { runId, cellIds } = await queueRun([
      { serverName: "go", vus: 1, durationSeconds: 6, warmupSeconds: 0 },
    ]);
    expect((await waitForRun(runId, 90_000)).status).toBe("succeeded");
    const cellId = cellIds[0]!;
    await until(async () => (await db.metricRollup.count({ where: { cellId } })) > 0, 30_000, "its rollups");
    await db.metricRollup.deleteMany({ where: { cellId } });

    const redis = await startOwnRedis("backfill");
    started.push(redis);
    const logs: string[] = [];
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("backfill", { PERFLAB_ROLLUP_MIN_SECONDS: "4" }),
      log: (line) => logs.push(line),
    });
    started.push(worker);
    await until(async () => logs.some((l) => l.includes("worker ready")), 60_000, "the worker to be ready");
    const levels = new Set(
      (await db.metricRollup.findMany({ where: { cellId }, select: { bucketSeconds: true } })).map(
        (r) => r.bucketSeconds,
      ),
    );
    expect([...levels].sort((a, b) => a - b)).toEqual([...ROLLUP_LEVELS]);
    expect(logs.join("\n")).toMatch(/rolled up long cells that lacked rollups/);
  }, 180_000);
});
