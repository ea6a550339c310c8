import { constants } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { isGcCollection, PauseRing, recentPausesKept, runtimeFigures } from "../src/runtime-info.js";

describe("gc_count", () => {
  it("counts completed collections, not V8's incremental marking steps or weak-callback entries", () => {
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_MINOR)).toBe(true);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_MAJOR)).toBe(true);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_INCREMENTAL)).toBe(false);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_WEAKCB)).toBe(false);
    expect(isGcCollection(undefined)).toBe(false);
  });
});

describe("gc_pauses_recent", () => {
  it("numbers pauses from 1 and keeps the newest 64, oldest first", () => {
    const ring = new PauseRing();
    for (let i = 1; i <= recentPausesKept + 2; i++) ring.add(i / 10);
    const recent = ring.recent();
    expect(recent).toHaveLength(recentPausesKept);
    expect(recent[0]).toEqual([3, 0.3]);
    expect(recent.at(-1)).toEqual([recentPausesKept + 2, (recentPausesKept + 2) / 10]);
  });

  it("lists every gc entry the total sums, so the longest is positive and within the total", async () => {
    const before = runtimeFigures(1);
    // Short-lived garbage makes V8 scavenge; the observer's callback runs on a later tick.
    let keep = 0;
    for (let i = 0; i < 200_000; i++) keep += new Array(64).fill(i).length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = runtimeFigures(1);
    const recent = after.gc_pauses_recent as [number, number][];
    const lastBefore = (before.gc_pauses_recent as [number, number][]).at(-1)?.[0] ?? 0;
    const fresh = recent.filter(([n]) => n > lastBefore);
    expect(keep).toBeGreaterThan(0);
    expect(fresh.length).toBeGreaterThan(0);
    expect((after.gc_count as number) - (before.gc_count as number)).toBeGreaterThan(0);
    const longest = Math.max(...fresh.map(([, ms]) => ms));
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(
      (after.gc_pause_total_ms as number) - (before.gc_pause_total_ms as number),
    );
  });
});
