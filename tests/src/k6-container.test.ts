import { createDockerDriver, LABEL_CELL } from "@perflab/worker/testing";
import { afterAll, describe, expect, inject, it } from "vitest";
import { type Service, startWorker } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, queueRun, startOwnRedis, testDb, waitForRun } from "./helpers.ts";

const started: Service[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

describe("k6 in its own container", () => {
  it("measures a local and a docker server with the same results path, and leaves no container", async () => {
    const redis = await startOwnRedis("k6-container");
    started.push(redis);
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("k6-container", {
        PERFLAB_HOST_ID: "perflab-k6-container-tests",
        PERFLAB_K6_RUNNER: "docker",
      }),
    });
    started.push(worker);

    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 4, warmupSeconds: 1 },
        { serverName: "go", vus: 2, durationSeconds: 4, warmupSeconds: 1, driver: "docker" },
      ],
      { redisUrl: redis.url },
    );
    const run = await waitForRun(runId, 150_000);
    const db = testDb();
    const cells = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(cells.map((c) => [c.status, c.error])).toEqual([
      ["succeeded", null],
      ["succeeded", null],
    ]);
    expect(run.status).toBe("succeeded");
    for (const cell of cells) {
      expect(cell.k6Version).toMatch(/^k6 v\d.*\[container perflab\/k6:[0-9a-f]{12}\]$/);
      const summary = cell.summary!;
      expect(summary.requests).toBeGreaterThan(0n);
      // k6's own count came back from inside the container and agrees with perflab's ingest.
      expect(summary.k6Requests).toBe(summary.requests);
      expect(summary.k6CpuAvgPct).toBeGreaterThan(0);
      expect(summary.k6RssPeakBytes).toBeGreaterThan(0n);
      const points = await db.metricPoint.findMany({ where: { cellId: cell.id, phase: "measure" } });
      expect(points.length).toBeGreaterThanOrEqual(3);
      expect(points.some((p) => (p.k6CpuPct ?? 0) > 0 && (p.k6RssBytes ?? 0n) > 0n)).toBe(true);
      const left = await createDockerDriver().docker.listContainers({
        all: true,
        filters: { label: [`${LABEL_CELL}=${cell.id}`] },
      });
      expect(left).toEqual([]);
    }
    expect(worker.exitReason()).toBeNull();
  });
});
