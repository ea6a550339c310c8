import { describe, expect, it } from "vitest";
import { livePointEvent, ZLiveEvent } from "./live.ts";

const second = {
  t: 1_700_000_012,
  phase: "measure" as const,
  rps: 250,
  errors: 1,
  p50: 1.5,
  p95: 3,
  p99: 4.25,
  cpuPct: 40,
  rssBytes: 12_000_000,
  k6CpuPct: null,
};

describe("the point event the worker publishes", () => {
  it("numbers the second from the load's start, dates it in milliseconds like a stored point, and is a valid live event", () => {
    const event = livePointEvent("cell-1", second, 1_700_000_000);
    expect(event).toEqual({
      type: "point",
      cellId: "cell-1",
      second: 12,
      ...second,
      t: 1_700_000_012_000,
      heapUsedBytes: null,
      gcPauseMaxMs: null,
    });
    expect(ZLiveEvent.parse(event)).toEqual(event);
  });

  it("carries only the fields the live view draws, whatever else the second holds", () => {
    const measured = { ...second, histogram: "HISTFAAA", requests: 250, runtime: { gcPauses: 3 } };
    const event = livePointEvent("cell-1", measured, 1_700_000_000);
    expect(Object.keys(event).sort()).toEqual(Object.keys(ZLiveEvent.parse(event)).sort());
    expect(event).not.toHaveProperty("histogram");
    expect(event).not.toHaveProperty("runtime");
  });

  it("carries the server runtime's heap and the second's longest GC pause from its runtime document", () => {
    const runtime = { heap_used_bytes: 5_000_000, gc_count: 4, gc_pause_max_ms: 0.75, threads: 7 };
    const event = livePointEvent("cell-1", { ...second, runtime }, 1_700_000_000);
    expect(event).toMatchObject({ heapUsedBytes: 5_000_000, gcPauseMaxMs: 0.75 });
    // Bun lists no pauses (null); a document without the figures gives null, not 0.
    const bun = livePointEvent(
      "cell-1",
      { ...second, runtime: { heap_used_bytes: 1, gc_pause_max_ms: null } },
      0,
    );
    expect(bun).toMatchObject({ heapUsedBytes: 1, gcPauseMaxMs: null });
    expect(livePointEvent("cell-1", { ...second, runtime: "x" }, 0)).toMatchObject({
      heapUsedBytes: null,
      gcPauseMaxMs: null,
    });
  });
});
