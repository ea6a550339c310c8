import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startRedis, startWorker } from "../../scripts/lib/services.ts";
import { queueRun, testDb, untilMeasuring, waitForRun } from "./helpers.ts";

const started: Service[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

describe("Redis restarting mid-cell", () => {
  it("loses no measurement: the cell finishes with every second stored, and queued cells still run", async () => {
    const dir = path.join(inject("tmpDir"), "redis-restart");
    const port = await freePort();
    let redis = await startRedis({ dir, port });
    started.push({ name: "redis", stop: () => redis.stop() });
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: {
        PERFLAB_SERVERS_DIR: inject("serversDir"),
        PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work-restart"),
      },
    });
    started.push(worker);

    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 10, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );
    const db = testDb();
    await untilMeasuring(db, cellIds[0]!);
    await new Promise((r) => setTimeout(r, 2_000));
    // A clean restart: AOF keeps the queue (the second cell's job) across it.
    await redis.stop();
    await new Promise((r) => setTimeout(r, 2_000));
    redis = await startRedis({ dir, port });

    const run = await waitForRun(runId, 120_000);
    const cells = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(cells.map((c) => [c.status, c.error])).toEqual([
      ["succeeded", null],
      ["succeeded", null],
    ]);
    expect(run.status).toBe("succeeded");
    const points = await db.metricPoint.count({ where: { cellId: cellIds[0]!, phase: "measure" } });
    expect(points).toBeGreaterThanOrEqual(9);
    expect(cells[0]!.summary!.requests).toBe(cells[0]!.summary!.k6Requests);
    expect(worker.exitReason()).toBeNull();
  });
});
