import { describe, expect, it } from "vitest";
import type { ResourceSample } from "./cell-aggregator.ts";
import { gcSummary, longestPauseSincePrevious } from "./runtime-gc.ts";

const doc = (pauses: [number, number][] | null, extra: Record<string, unknown> = {}) => ({
  gc_count: pauses?.length ?? 0,
  gc_pauses_recent: pauses,
  ...extra,
});

describe("longestPauseSincePrevious", () => {
  it("takes the longest pause numbered after the last one seen, and replaces the list", () => {
    const reduce = longestPauseSincePrevious();
    expect(reduce(doc([[1, 5]]))).toEqual({ gc_count: 1, gc_pause_max_ms: 0 });
    expect(
      reduce(
        doc([
          [1, 5],
          [2, 0.3],
          [3, 0.7],
        ]),
      ),
    ).toMatchObject({ gc_pause_max_ms: 0.7 });
    // Nothing new: no pause that second, which is 0, not null.
    expect(
      reduce(
        doc([
          [2, 0.3],
          [3, 0.7],
        ]),
      ),
    ).toMatchObject({ gc_pause_max_ms: 0 });
  });

  it("stays right when readings are missed or another reader read in between", () => {
    const reduce = longestPauseSincePrevious();
    reduce(doc([[1, 1]]));
    // Seconds 2 and 3 were never read: the 9 ms pause of 2 still counts in the next reading.
    expect(
      reduce(
        doc([
          [1, 1],
          [2, 9],
          [3, 2],
          [4, 1],
        ]),
      ),
    ).toMatchObject({ gc_pause_max_ms: 9 });
  });

  it("gives null for a runtime that lists none (Bun) and leaves documents without the key alone", () => {
    const reduce = longestPauseSincePrevious();
    expect(reduce(doc(null))).toEqual({ gc_count: 0, gc_pause_max_ms: null });
    expect(reduce({ heap_used_bytes: 1 })).toEqual({ heap_used_bytes: 1 });
    expect(reduce(undefined)).toBeUndefined();
    // Rust: no collector, an empty list, so exactly 0.
    const rust = longestPauseSincePrevious();
    rust(doc([]));
    expect(rust(doc([]))).toMatchObject({ gc_pause_max_ms: 0 });
  });
});

const sample = (t: number, runtime: unknown): ResourceSample => ({
  t,
  cpuPct: null,
  rssBytes: null,
  k6CpuPct: null,
  k6RssBytes: null,
  hostCpuPct: null,
  runtime,
});

describe("gcSummary", () => {
  it("gives collections per second, mean pause per collection and the longest pause of the window", () => {
    const s = gcSummary([
      sample(100, { gc_count: 10, gc_pause_total_ms: 5, gc_pause_max_ms: 0.5 }),
      sample(101, { gc_count: 14, gc_pause_total_ms: 7, gc_pause_max_ms: 1.5 }),
      sample(102, null), // a missed reading
      sample(104, { gc_count: 18, gc_pause_total_ms: 9, gc_pause_max_ms: 0.25 }),
    ]);
    expect(s).toEqual({ gcCollectionsPerSec: 2, gcPauseAvgMs: 0.5, gcPauseMaxMs: 1.5 });
  });

  it("is null where the runtime reports nothing, and 0 collections give no mean pause", () => {
    expect(gcSummary([sample(1, null), sample(2, null)])).toEqual({
      gcCollectionsPerSec: null,
      gcPauseAvgMs: null,
      gcPauseMaxMs: null,
    });
    const rust = { gc_count: 0, gc_pause_total_ms: 0, gc_pause_max_ms: 0 };
    expect(gcSummary([sample(1, rust), sample(3, rust)])).toEqual({
      gcCollectionsPerSec: 0,
      gcPauseAvgMs: null,
      gcPauseMaxMs: 0,
    });
  });
});
