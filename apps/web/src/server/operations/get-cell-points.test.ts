import { createDb, type Db, writeCellRollups } from "@perflab/db";
import { createCellWithSeconds, startTestPostgres, type TestPostgres } from "@perflab/db/testing";
import { latencyStats, mergeEncoded } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCellPoints } from "./get-cell-points";

let server: TestPostgres;
let db: Db;
let rolled: { cellId: string; histograms: string[] };
let unrolled: { cellId: string; histograms: string[] };
let older: { cellId: string; histograms: string[] };

beforeAll(async () => {
  server = await startTestPostgres({ migrate: true });
  db = createDb(server.url);
  rolled = await createCellWithSeconds(db, 1_300);
  await writeCellRollups(db, rolled.cellId);
  // A cell still running (or from before rollups): the same seconds, none merged.
  unrolled = await createCellWithSeconds(db, 1_300);
  // Rolled up by an older perflab, before the 5 min level.
  older = await createCellWithSeconds(db, 1_300);
  await writeCellRollups(db, older.cellId);
  await db.metricRollup.deleteMany({ where: { cellId: older.cellId, bucketSeconds: 300 } });
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

const merged = (histograms: string[], from: number, to: number) =>
  latencyStats(mergeEncoded(histograms.slice(from, to)));

describe("getCellPoints", () => {
  it("returns every second of a cell that fits the limit", async () => {
    const points = await getCellPoints({ db, cellIds: [rolled.cellId], maxPointsPerCell: 2_000 });
    expect(points[rolled.cellId]).toHaveLength(1_300);
  });

  it("reads a longer cell from the finest rollup level that fits, percentiles of the merged buckets", async () => {
    const points = (await getCellPoints({ db, cellIds: [rolled.cellId], maxPointsPerCell: 500 }))[
      rolled.cellId
    ]!;
    expect(points).toHaveLength(260);
    const bucket = points.find((p) => p.second === 1_260)!;
    const expected = merged(rolled.histograms, 1_260, 1_265);
    expect(bucket).toMatchObject({ p50: expected.p50, p95: expected.p95, p99: expected.p99, rps: 50 });
    expect(points[0]!.phase).toBe("warmup");
  });

  it("reads the 5 min level when the 60 s one has more buckets than the limit", async () => {
    const points = (await getCellPoints({ db, cellIds: [rolled.cellId], maxPointsPerCell: 10 }))[
      rolled.cellId
    ]!;
    expect(points.map((p) => p.second)).toEqual([0, 300, 600, 900, 1_200]);
    const expected = merged(rolled.histograms, 300, 600);
    expect(points[1]).toMatchObject({ p50: expected.p50, p99: expected.p99, errors: 0, rps: 50 });
  });

  it("merges the coarsest level further when even it exceeds the limit", async () => {
    const points = (await getCellPoints({ db, cellIds: [rolled.cellId], maxPointsPerCell: 3 }))[
      rolled.cellId
    ]!;
    // 5 buckets of 300 s merged two at a time: 600 s each, the last holding seconds 1,200–1,299.
    expect(points.map((p) => p.second)).toEqual([0, 600, 1_200]);
    const expected = merged(rolled.histograms, 600, 1_200);
    expect(points[1]).toMatchObject({ p50: expected.p50, p99: expected.p99, errors: 0, rps: 50 });
  });

  it("reads a cell rolled up before the 5 min level from its 60 s buckets, merged to fit", async () => {
    const points = (await getCellPoints({ db, cellIds: [older.cellId], maxPointsPerCell: 10 }))[
      older.cellId
    ]!;
    // 22 buckets of 60 s merged three at a time: 180 s each, the last holding seconds 1,260–1,299.
    expect(points.map((p) => p.second)).toEqual([0, 180, 360, 540, 720, 900, 1_080, 1_260]);
    const expected = merged(older.histograms, 180, 360);
    expect(points[1]).toMatchObject({ p50: expected.p50, p99: expected.p99, errors: 0, rps: 50 });
    expect(points.at(-1)).toMatchObject({ p99: merged(older.histograms, 1_260, 1_300).p99 });
  });

  it("cuts a cell without rollups to buckets of its worst second, and mixes both kinds in one call", async () => {
    const points = await getCellPoints({
      db,
      cellIds: [rolled.cellId, unrolled.cellId],
      maxPointsPerCell: 500,
    });
    expect(points[rolled.cellId]).toHaveLength(260);
    const fallback = points[unrolled.cellId]!;
    expect(fallback).toHaveLength(434); // buckets of 3 s
    const worst = Math.max(...[0, 1, 2].map((s) => merged(unrolled.histograms, s, s + 1).p99!));
    expect(fallback[0]!.p99).toBe(worst);
  });
});
