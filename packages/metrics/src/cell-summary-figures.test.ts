import type { TK6IntervalLine } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { CellAggregator } from "./cell-aggregator.ts";
import { createLatencyHistogram, encodeHistogram } from "./histogram.ts";

function hist(valuesUs: number[]): string {
  const h = createLatencyHistogram();
  for (const v of valuesUs) h.recordValue(v);
  return encodeHistogram(h);
}

/** One measured second of GETs: `ok` answered in 1 ms, `timedOut` cut at 200 ms, `refused` failed at once. */
function second(t: number, ok: number, timedOut: number, refused: number): TK6IntervalLine {
  const failed = timedOut + refused;
  return {
    type: "interval",
    t,
    groups: [
      {
        phase: "measure",
        method: "GET",
        tool: "/rest/time",
        requests: ok + failed,
        failed,
        opErrors: failed,
        timeouts: timedOut,
        hist: hist([...Array(ok).fill(1_000), ...Array(timedOut).fill(200_000), ...Array(refused).fill(100)]),
      },
    ],
    iterations: ok + failed,
    dataSent: 0,
    dataReceived: 0,
    vus: 2,
  };
}

describe("the summary's timeouts", () => {
  it("counts requests that hit the client's timeout apart from the other errors", () => {
    const agg = new CellAggregator({ operationMethod: "GET" });
    agg.addInterval(second(100, 8, 2, 0));
    agg.addInterval(second(101, 5, 3, 1));
    const s = agg.summary({ durationSec: 2 });
    expect(s.requests).toBe(19);
    expect(s.timeouts).toBe(5);
    expect(s.errors).toBe(1);
    expect(s.operations[0]).toMatchObject({ count: 19, errors: 1, timeouts: 5 });
  });

  it("gives exactly N timeouts and no error when every request hits the timeout", () => {
    const agg = new CellAggregator({ operationMethod: "GET" });
    for (let t = 0; t < 3; t++) agg.addInterval(second(200 + t, 0, 4, 0));
    expect(agg.summary({ durationSec: 3 })).toMatchObject({ requests: 12, timeouts: 12, errors: 0 });
  });

  it("is 0 for output without timeouts (a line from before they were counted)", () => {
    const agg = new CellAggregator({ operationMethod: "GET" });
    const { timeouts: _, ...older } = second(300, 3, 0, 1).groups[0]!;
    agg.addInterval({ ...second(300, 3, 0, 1), groups: [older] });
    expect(agg.summary({ durationSec: 1 })).toMatchObject({ timeouts: 0, errors: 1 });
  });
});

describe("the summary's latency spread and GC", () => {
  it("takes the standard deviation of the merged window and the runtime's GC over the measured samples", () => {
    const agg = new CellAggregator({ operationMethod: "GET" });
    // 1 ms and 1.2 ms, as many of each: a spread of 0.1 ms.
    agg.addInterval(second(400, 10, 0, 0));
    agg.addInterval({
      ...second(401, 10, 0, 0),
      groups: [{ ...second(401, 10, 0, 0).groups[0]!, hist: hist(Array(10).fill(1_200)) }],
    });
    const sample = (t: number, runtime: unknown) => ({
      t,
      cpuPct: 50,
      rssBytes: 1e6,
      k6CpuPct: null,
      k6RssBytes: null,
      hostCpuPct: null,
      runtime,
    });
    agg.addResources(sample(400, { gc_count: 4, gc_pause_total_ms: 2, gc_pause_max_ms: 0.5 }));
    agg.addResources(sample(401, { gc_count: 10, gc_pause_total_ms: 5, gc_pause_max_ms: 1.5 }));
    expect(agg.summary({ durationSec: 2 })).toMatchObject({
      latencyStddevMs: 0.1,
      gcCollectionsPerSec: 6,
      gcPauseAvgMs: 0.5,
      gcPauseMaxMs: 1.5,
    });
  });
});
