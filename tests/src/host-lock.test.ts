import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { startWorker } from "../../scripts/lib/services.ts";
import { queueRun, testDb, waitForRun } from "./helpers.ts";

describe("one cell at a time per host", () => {
  it("never overlaps two cells, even with two worker processes on the host", async () => {
    const second = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      env: {
        PERFLAB_SERVERS_DIR: inject("serversDir"),
        PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work2"),
      },
    });
    try {
      const { runId, cellIds } = await queueRun([
        { serverName: "go", vus: 1, durationSeconds: 3, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 3, warmupSeconds: 0 },
      ]);
      const run = await waitForRun(runId, 90_000);
      expect(run.status).toBe("succeeded");
      const cells = await testDb().cell.findMany({
        where: { id: { in: cellIds } },
        orderBy: { startedAt: "asc" },
      });
      const [a, b] = cells;
      expect(a!.finishedAt!.getTime()).toBeLessThanOrEqual(b!.startedAt!.getTime());
      expect(second.exitReason()).toBeNull();
    } finally {
      await second.stop();
    }
  });
});
