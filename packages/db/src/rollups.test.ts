import { latencyStats, mergeEncoded } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index.ts";
import { writeCellRollups } from "./rollups.ts";
import { createCellWithSeconds, startTestPostgres, type TestPostgres } from "./testing.ts";

let server: TestPostgres;
let db: Db;

beforeAll(async () => {
  server = await startTestPostgres({ migrate: true });
  db = createDb(server.url);
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

describe("writeCellRollups", () => {
  it("writes every level of a long cell from its stored seconds, percentiles from merged histograms", async () => {
    const { cellId, histograms } = await createCellWithSeconds(db, 1_300);
    const written = await writeCellRollups(db, cellId);
    // 1,300 seconds: 260 buckets of 5 s, 44 of 30 s, 22 of 60 s.
    expect(written).toBe(260 + 44 + 22);
    const counts = await db.metricRollup.groupBy({
      by: ["bucketSeconds"],
      where: { cellId },
      _count: { _all: true },
      orderBy: { bucketSeconds: "asc" },
    });
    expect(counts.map((c) => [c.bucketSeconds, c._count._all])).toEqual([
      [5, 260],
      [30, 44],
      [60, 22],
    ]);
    const bucket = await db.metricRollup.findUniqueOrThrow({
      where: { cellId_bucketSeconds_second: { cellId, bucketSeconds: 30, second: 1_260 } },
    });
    const expected = latencyStats(mergeEncoded(histograms.slice(1_260, 1_290)));
    expect(bucket).toMatchObject({
      seconds: 30,
      requests: 1_500,
      ops: 750,
      phase: "measure",
      rps: 50,
      cpuPct: 40,
      rssBytes: 10_000n + 1_289n,
      latencyP50Ms: expected.p50,
      latencyP99Ms: expected.p99,
      latencyMaxMs: expected.maxMs,
    });
    // The last, partial 60 s bucket and the warm-up's.
    const last = await db.metricRollup.findUniqueOrThrow({
      where: { cellId_bucketSeconds_second: { cellId, bucketSeconds: 60, second: 1_260 } },
    });
    expect(last.seconds).toBe(40);
    const first = await db.metricRollup.findUniqueOrThrow({
      where: { cellId_bucketSeconds_second: { cellId, bucketSeconds: 5, second: 5 } },
    });
    expect(first.phase).toBe("warmup");

    // Idempotent: a second write replaces the first.
    expect(await writeCellRollups(db, cellId)).toBe(written);
    expect(await db.metricRollup.count({ where: { cellId } })).toBe(written);
  }, 60_000);

  it("writes none for a cell short enough to chart from its seconds", async () => {
    const { cellId } = await createCellWithSeconds(db, 600);
    expect(await writeCellRollups(db, cellId)).toBe(0);
    expect(await db.metricRollup.count({ where: { cellId } })).toBe(0);
    expect(await writeCellRollups(db, cellId, { minSeconds: 100 })).toBe(120 + 20 + 10);
  }, 60_000);
});
