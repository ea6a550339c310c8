import os from "node:os";
import path from "node:path";
import { QUEUE_CELLS } from "@perflab/contracts";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { startWorker } from "../../scripts/lib/services.ts";
import { queueRun, redisConnection, testDb, until, waitForRun } from "./helpers.ts";

describe("one cell at a time per host", () => {
  it("never overlaps two cells, even with two worker processes on the host", async () => {
    const logs: string[] = [];
    const second = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      env: {
        PERFLAB_SERVERS_DIR: inject("serversDir"),
        PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work2"),
      },
      log: (line) => logs.push(line),
    });
    // Hold the host while both workers take a job, so both really contend for it when it frees.
    const lockKey = `perflab:host-lock:${os.hostname()}`;
    const redis = new Redis(inject("redisUrl"));
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection() });
    try {
      await until(
        async () => logs.some((l) => l.includes("worker ready")),
        60_000,
        "the second worker to be ready",
      );
      await redis.set(lockKey, "held-by-the-test", "PX", 60_000);
      const { runId, cellIds } = await queueRun([
        { serverName: "go", vus: 1, durationSeconds: 3, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 3, warmupSeconds: 0 },
      ]);
      await until(
        async () => {
          const states = await Promise.all(cellIds.map(async (id) => (await queue.getJob(id))?.getState()));
          return states.every((s) => s === "active");
        },
        60_000,
        "both workers to hold a cell",
      );
      await until(
        async () => logs.some((l) => l.includes("waiting for the host")),
        60_000,
        "the second worker to wait for the host",
      );
      await redis.del(lockKey);

      const run = await waitForRun(runId, 90_000);
      expect(run.status).toBe("succeeded");
      const cells = await testDb().cell.findMany({
        where: { id: { in: cellIds } },
        orderBy: { startedAt: "asc" },
      });
      const [a, b] = cells;
      expect(a!.finishedAt!.getTime()).toBeLessThanOrEqual(b!.startedAt!.getTime());
      const ranOnSecond = cellIds.filter((id) =>
        logs.some((l) => l.includes("cell started") && l.includes(id)),
      );
      expect(ranOnSecond).toHaveLength(1);
      expect(second.exitReason()).toBeNull();
    } finally {
      await redis.del(lockKey);
      await redis.quit();
      await queue.close();
      await second.stop();
    }
  });
});
