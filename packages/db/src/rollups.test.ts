import { latencyStats, mergeEncoded } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index.ts";
import { backfillRollups, writeCellRollups } from "./rollups.ts";
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
    // 1,300 seconds: 260 buckets of 5 s, 44 of 30 s, 22 of 60 s, 5 of 300 s.
    expect(written).toBe(260 + 44 + 22 + 5);
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
      [300, 5],
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
    const lastOfAll = await db.metricRollup.findUniqueOrThrow({
      where: { cellId_bucketSeconds_second: { cellId, bucketSeconds: 300, second: 1_200 } },
    });
    expect(lastOfAll).toMatchObject({ seconds: 100, requests: 5_000, rssBytes: 10_000n + 1_299n });
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
    expect(await writeCellRollups(db, cellId, { minSeconds: 100 })).toBe(120 + 20 + 10 + 2);
  }, 60_000);
});

describe("backfillRollups", () => {
  it("rolls up the ended long cells that have none, and leaves running, short and rolled-up cells alone", async () => {
    const ended = async (seconds: number, status: "succeeded" | "failed" | "running") => {
      const { cellId } = await createCellWithSeconds(db, seconds);
      await db.cell.update({
        where: { id: cellId },
        data: { status, finishedAt: status === "running" ? null : new Date() },
      });
      return cellId;
    };
    const old = await ended(700, "succeeded");
    const failedLate = await ended(650, "failed");
    const running = await ended(700, "running");
    const short = await ended(600, "succeeded");
    // Exactly one second more than the threshold (seconds 0..600) is long enough.
    const justLong = await ended(601, "succeeded");
    const rolled = await ended(700, "succeeded");
    const rolledCount = await writeCellRollups(db, rolled);
    const before = await db.metricRollup.findFirstOrThrow({ where: { cellId: rolled } });

    expect(await backfillRollups(db)).toEqual({ rolledUp: 3, failed: [] });
    const count = (cellId: string) => db.metricRollup.count({ where: { cellId } });
    // 700 seconds: 140 buckets of 5 s, 24 of 30 s, 12 of 60 s, 3 of 300 s; 650: 130, 22, 11, 3.
    expect(await count(old)).toBe(140 + 24 + 12 + 3);
    expect(await count(failedLate)).toBe(130 + 22 + 11 + 3);
    expect(await count(running)).toBe(0);
    expect(await count(short)).toBe(0);
    expect(await count(justLong)).toBe(121 + 21 + 11 + 3);
    expect(await count(rolled)).toBe(rolledCount);
    // Not rewritten: the same rows as before.
    expect(await db.metricRollup.findFirstOrThrow({ where: { cellId: rolled } })).toEqual(before);
    // Nothing left to do.
    expect(await backfillRollups(db)).toEqual({ rolledUp: 0, failed: [] });
  }, 120_000);

  it("rewrites the rollups of a cell rolled up before the coarsest level existed", async () => {
    const { cellId } = await createCellWithSeconds(db, 700);
    await db.cell.update({ where: { id: cellId }, data: { status: "succeeded", finishedAt: new Date() } });
    const written = await writeCellRollups(db, cellId);
    // As an older perflab left it: every level but the 5 min one.
    await db.metricRollup.deleteMany({ where: { cellId, bucketSeconds: 300 } });
    expect(await backfillRollups(db)).toEqual({ rolledUp: 1, failed: [] });
    expect(await db.metricRollup.count({ where: { cellId } })).toBe(written);
    expect(await db.metricRollup.count({ where: { cellId, bucketSeconds: 300 } })).toBe(3);
    expect(await backfillRollups(db)).toEqual({ rolledUp: 0, failed: [] });
  }, 60_000);
});
