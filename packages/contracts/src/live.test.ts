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
  it("numbers the second from the load's start and is a valid live event", () => {
    const event = livePointEvent("cell-1", second, 1_700_000_000);
    expect(event).toEqual({ type: "point", cellId: "cell-1", second: 12, ...second });
    expect(ZLiveEvent.parse(event)).toEqual(event);
  });

  it("carries only the fields the live view draws, whatever else the second holds", () => {
    const measured = { ...second, histogram: "HISTFAAA", requests: 250, runtime: { gcPauses: 3 } };
    const event = livePointEvent("cell-1", measured, 1_700_000_000);
    expect(Object.keys(event).sort()).toEqual(Object.keys(ZLiveEvent.parse(event)).sort());
    expect(event).not.toHaveProperty("histogram");
    expect(event).not.toHaveProperty("runtime");
  });
});
