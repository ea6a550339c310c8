import type { TLiveEvent } from "@perflab/contracts";
import { logger, PointSink } from "@perflab/worker/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createLatencyHistogram, encodeHistogram } from "../../packages/metrics/src/histogram.ts";
import { CellAggregator, type SecondPoint } from "../../packages/metrics/src/index.ts";
import { queueRun, testDb } from "./helpers.ts";

const log = logger.child({ test: "point-sink" });
log.level = process.env.PERFLAB_TEST_LOGS ? "debug" : "silent";
const publisher = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 3 });
afterAll(async () => {
  await publisher.quit();
});

const LOAD_START_T = Math.floor(Date.now() / 1000) - 60;
const WARMUP = 3;
const MEASURED = 12;

/** One second of k6's output: `requests` tool calls, the phase following the planned warm-up. */
function interval(t: number, requests: number) {
  const hist = createLatencyHistogram();
  for (let i = 0; i < requests; i++) hist.recordValue(900 + ((i * 37) % 400));
  const phase = t < LOAD_START_T + WARMUP ? "warmup" : "measure";
  return {
    type: "interval" as const,
    t,
    groups: [
      {
        phase,
        method: "tools/call",
        tool: "echo",
        requests,
        failed: 0,
        opErrors: 0,
        hist: encodeHistogram(hist),
      },
    ],
    iterations: requests,
    dataSent: requests * 100,
    dataReceived: requests * 200,
    vus: 2,
  };
}

/**
 * The seconds a cell's ingest hands its sink, in the order it does: each second once ready, one of
 * them again when a late line for it comes, with the resources sampled beside them.
 */
function secondsAsIngested(): SecondPoint[][] {
  const aggregator = new CellAggregator({ operationMethod: "tools/call", measuredSeconds: MEASURED });
  aggregator.setMeasureStart((LOAD_START_T + WARMUP) * 1000);
  const batches: SecondPoint[][] = [];
  for (let i = 0; i < WARMUP + MEASURED; i++) {
    const t = LOAD_START_T + i;
    aggregator.addInterval(interval(t, 20 + i));
    aggregator.addResources({
      t,
      cpuPct: 40 + i,
      rssBytes: 1e6 + i,
      k6CpuPct: 30,
      k6RssBytes: 2e6,
      hostCpuPct: 80,
      runtime: { goroutines: i },
    });
    // A late line for the second before last, after it was handed over: it is handed over again.
    if (i === WARMUP + 6) aggregator.addInterval(interval(t - 2, 5));
    batches.push(aggregator.takeReadyPoints(t + 1, 1));
  }
  batches.push(aggregator.takeAllPoints());
  return batches;
}

/** Hands the same seconds to a sink gathering `batchSeconds`, a second apart (sped up), and reads back the rows. */
async function stored(batchSeconds: number, batches: SecondPoint[][]) {
  const { runId, cellIds } = await queueRun(
    [{ serverName: "go", vus: 2, durationSeconds: MEASURED, warmupSeconds: WARMUP }],
    { enqueue: false },
  );
  const cellId = cellIds[0]!;
  const events: TLiveEvent[] = [];
  const subscriber = new Redis(inject("redisUrl"));
  await subscriber.subscribe(`perflab:run:${runId}`);
  subscriber.on("message", (_channel, message) => events.push(JSON.parse(message)));
  const sink = new PointSink(
    { db: testDb(), publisher, log, retryMs: 5_000 },
    { id: cellId, runId },
    () => LOAD_START_T,
    () => undefined,
    { batchSeconds },
  );
  const writesAt: number[] = [];
  for (const points of batches) {
    sink.push(points);
    writesAt.push(await testDb().metricPoint.count({ where: { cellId } }));
    await new Promise((r) => setTimeout(r, 150));
  }
  await sink.flush();
  await new Promise((r) => setTimeout(r, 200));
  await subscriber.quit();
  const rows = await testDb().metricPoint.findMany({ where: { cellId }, orderBy: { t: "asc" } });
  return { rows: rows.map(({ cellId: _cell, ...row }) => row), events, writesAt };
}

describe("a cell's stored seconds", () => {
  it("are the same whether the live view gets every second or batches of them", async () => {
    const batches = secondsAsIngested();
    const everySecond = await stored(1, batches);
    // A batch outlasts the whole sped-up cell (2.5 s): the measured seconds wait for the flush.
    const batched = await stored(60, batches);
    expect(everySecond.rows).toHaveLength(WARMUP + MEASURED);
    expect(batched.rows).toEqual(everySecond.rows);
    // The late line's second is stored as merged, in either case.
    const late = everySecond.rows.find((r) => r.second === WARMUP + 4)!;
    expect(late.requests).toBe(20 + WARMUP + 4 + 5);
    // Batched, the warm-up went out as it came and the measured seconds only at the end.
    expect(Math.max(...batched.writesAt.slice(0, -1))).toBe(WARMUP);
    const measuredPoints = (e: { events: TLiveEvent[] }) =>
      e.events.filter((ev) => ev.type === "point" && ev.phase === "measure");
    expect(new Set(measuredPoints(batched).map((ev) => ev.type === "point" && ev.second))).toEqual(
      new Set(measuredPoints(everySecond).map((ev) => ev.type === "point" && ev.second)),
    );
  });
});
