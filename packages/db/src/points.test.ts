import type { SecondPoint } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index.ts";
import { METRIC_POINT_ROWS_PER_STATEMENT, upsertMetricPoints } from "./points.ts";
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

const LOAD_START = 1_800_000_000;

function point(i: number, over: Partial<SecondPoint> = {}): SecondPoint {
  return {
    t: LOAD_START + i,
    phase: i < 3 ? "warmup" : "measure",
    requests: 100 + i,
    errors: i % 5 === 0 ? 1 : 0,
    ops: 98 + i,
    rps: 100.5 + i,
    p50: 2.5,
    p90: 3.25,
    p95: 4,
    p99: 9.75,
    max: 20,
    mean: 2.75,
    histogram: `hist-${i}`,
    dataSent: 35_000 + i,
    dataReceived: 31_000 + i,
    cpuPct: 42.5,
    rssBytes: 5_000_000_000 + i,
    k6CpuPct: 80,
    k6RssBytes: 60_000_000,
    hostCpuPct: 95,
    runtime: i === 7 ? { heapUsedBytes: 1234, gcCount: 2 } : null,
    ...over,
  };
}

describe("upsertMetricPoints", () => {
  it("writes every point, over several statements, with each column where the charts read it", async () => {
    const { cellId } = await createCellWithSeconds(db, 0);
    const count = METRIC_POINT_ROWS_PER_STATEMENT + 501;
    const points = Array.from({ length: count }, (_, i) =>
      point(
        i,
        i === 9 ? { p50: null, p99: null, mean: null, histogram: null, requests: 0, cpuPct: null } : {},
      ),
    );
    await upsertMetricPoints(db, cellId, points, LOAD_START - 2);

    const rows = await db.metricPoint.findMany({ where: { cellId }, orderBy: { t: "asc" } });
    expect(rows).toHaveLength(count);
    expect(rows.map((r) => r.second)).toEqual(points.map((_, i) => i + 2));
    const last = rows.at(-1)!;
    expect(last).toMatchObject({
      t: new Date((LOAD_START + count - 1) * 1000),
      phase: "measure",
      requests: 100 + count - 1,
      rps: 100.5 + count - 1,
      latencyP50Ms: 2.5,
      latencyP90Ms: 3.25,
      latencyP99Ms: 9.75,
      latencyMaxMs: 20,
      latencyMeanMs: 2.75,
      rssBytes: BigInt(5_000_000_000 + count - 1),
      netRxBytes: BigInt(35_000 + count - 1),
      netTxBytes: BigInt(31_000 + count - 1),
      histogram: `hist-${count - 1}`,
      runtime: null,
    });
    expect(rows[0]!.phase).toBe("warmup");
    expect(rows[7]!.runtime).toEqual({ heapUsedBytes: 1234, gcCount: 2 });
    expect(rows[9]).toMatchObject({
      requests: 0,
      latencyP50Ms: null,
      latencyMeanMs: null,
      histogram: null,
      cpuPct: null,
    });
  });

  it("rewrites a second written again (a late k6 line) instead of failing or adding a row", async () => {
    const { cellId } = await createCellWithSeconds(db, 0);
    await upsertMetricPoints(db, cellId, [point(0), point(1)], LOAD_START);
    await upsertMetricPoints(
      db,
      cellId,
      [point(1, { requests: 999, p99: 42, histogram: "later" })],
      LOAD_START,
    );
    const rows = await db.metricPoint.findMany({ where: { cellId }, orderBy: { t: "asc" } });
    expect(rows.map((r) => [r.second, r.requests, r.latencyP99Ms, r.histogram])).toEqual([
      [0, 100, 9.75, "hist-0"],
      [1, 999, 42, "later"],
    ]);
  });

  it("writes nothing of a statement that fails inside a transaction", async () => {
    const { cellId } = await createCellWithSeconds(db, 0);
    const points = [point(0), point(1), point(2)];
    await expect(
      db.$transaction(async (tx) => {
        await upsertMetricPoints(tx, cellId, points.slice(0, 2), LOAD_START);
        await upsertMetricPoints(tx, "no-such-cell", points.slice(2), LOAD_START);
      }),
    ).rejects.toThrow();
    expect(await db.metricPoint.count({ where: { cellId } })).toBe(0);
  });
});
