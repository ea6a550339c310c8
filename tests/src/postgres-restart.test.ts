/**
 * Postgres restarting mid-cell (an upgrade, a failover, a crash the service manager restarts): the
 * worker keeps the seconds it could not write and writes them once the database is back, so the
 * cell ends with every second stored and the summary k6 agrees with, and the run's next cell runs.
 * The lab here has a Postgres, Redis and worker of its own, so the suite's database stays up.
 */
import path from "node:path";
import { createDb } from "@perflab/db";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  freePort,
  type Service,
  startPostgres,
  startRedis,
  startWorker,
} from "../../scripts/lib/services.ts";
import { queueRun, untilMeasuring, waitForRun } from "./helpers.ts";

const started: Service[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

/**
 * A lab of the test's own under `name`: Postgres (restartable on its port), Redis, a worker with
 * `env`, and a client of the database; `outage(ms)` stops Postgres for that long.
 */
async function ownLab(name: string, env: Record<string, string> = {}) {
  const dir = path.join(inject("tmpDir"), name);
  const pgPort = await freePort();
  let pg = await startPostgres({ dir: path.join(dir, "postgres"), port: pgPort });
  started.push({ name: `postgres (${name})`, stop: () => pg.stop() });
  const redis = await startRedis({ dir: path.join(dir, "redis"), port: await freePort() });
  started.push(redis);
  const client = createDb(pg.url, { poolSize: 2 });
  started.push({ name: `db client (${name})`, stop: () => client.$disconnect() });
  const logs: string[] = [];
  const worker = startWorker({
    databaseUrl: pg.url,
    redisUrl: redis.url,
    env: { PERFLAB_SERVERS_DIR: inject("serversDir"), PERFLAB_WORK_DIR: path.join(dir, "work"), ...env },
    log: (line) => logs.push(line),
  });
  started.push(worker);
  /** Down for `ms`, then back on the same data and port. */
  const outage = async (ms: number) => {
    await pg.stop();
    await new Promise((r) => setTimeout(r, ms));
    pg = await startPostgres({ dir: path.join(dir, "postgres"), port: pgPort });
  };
  return { db: client, redis, worker, logs, outage };
}

describe("Postgres restarting mid-cell", () => {
  it("loses no second: the cell succeeds with every measured second stored, and the next cell runs", async () => {
    const lab = await ownLab("pg-restart");
    const { db, redis, worker, logs } = lab;

    const MEASURED = 14;
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: MEASURED, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url, db },
    );
    await untilMeasuring(db, cellIds[0]!);
    await new Promise((r) => setTimeout(r, 3_000));
    // Down for a few seconds of the measured window, then back on the same data and port.
    await lab.outage(4_000);

    const run = await waitForRun(runId, 120_000, db);
    const cells = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(
      cells.map((c) => [c.status, c.error]),
      logs.slice(-20).join("\n"),
    ).toEqual([
      ["succeeded", null],
      ["succeeded", null],
    ]);
    expect(run.status).toBe("succeeded");
    // Every measured second is there, the ones k6 ran while the database was down included.
    const seconds = (
      await db.metricPoint.findMany({
        where: { cellId: cellIds[0]!, phase: "measure" },
        select: { second: true },
        orderBy: { second: "asc" },
      })
    ).map((p) => p.second);
    expect(seconds.length).toBeGreaterThanOrEqual(MEASURED);
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]! - seconds[i - 1]!).toBe(1);
    const summary = cells[0]!.summary!;
    expect(summary.requests).toBe(summary.k6Requests);
    const stored = await db.metricPoint.aggregate({
      where: { cellId: cellIds[0]!, phase: "measure" },
      _sum: { requests: true },
    });
    expect(Number(stored._sum.requests)).toBe(Number(summary.requests));
    // The worker said what happened, and kept running.
    const log = logs.join("\n");
    expect(log).toMatch(/the database does not answer; retrying the write/);
    expect(log).toMatch(/the database answers again; the write went through/);
    expect(worker.exitReason()).toBeNull();
  }, 180_000);

  it("fails a cell at once when the database stays away past the retry window, naming the write", async () => {
    const lab = await ownLab("pg-outage", { PERFLAB_DB_RETRY_MS: "2000" });
    const { db: outageDb, redis, worker, logs } = lab;

    const MEASURED = 60;
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 1, durationSeconds: MEASURED, warmupSeconds: 0 }],
      { redisUrl: redis.url, db: outageDb },
    );
    await untilMeasuring(outageDb, cellIds[0]!);
    await new Promise((r) => setTimeout(r, 2_000));
    // Away for longer than the seconds' 2 s window, back well within the cell's end's minute.
    await lab.outage(8_000);

    const run = await waitForRun(runId, 90_000, outageDb);
    const cell = await outageDb.cell.findUniqueOrThrow({
      where: { id: cellIds[0]! },
      include: { summary: true },
    });
    expect([run.status, cell.status], logs.slice(-20).join("\n")).toEqual(["failed", "failed"]);
    expect(cell.error).toMatch(
      /the database did not answer for \d+ s while writing seconds .* \(PERFLAB_DB_RETRY_MS=2000\)/,
    );
    expect(cell.summary).toBeNull();
    // Stopped when the write gave up, not when its 60 s of load would have ended.
    const ranMs = cell.finishedAt!.getTime() - cell.measureStartedAt!.getTime();
    expect(ranMs).toBeLessThan(40_000);
    expect(logs.join("\n")).toMatch(/the cell's seconds could not be written: stopping its load/);
    expect(worker.exitReason()).toBeNull();
  }, 180_000);
});
