import { describe, expect, it } from "vitest";
import { levelFootprints, type StormSummary, stormFigures, stormLevelCounts } from "./connection-storm.ts";

const startMs = 1_000_000;
const plan = [
  { level: 10, startSec: 2, holdFromSec: 4, holdToSec: 8 },
  { level: 100, startSec: 10, holdFromSec: 12, holdToSec: 16 },
];
const summary: StormSummary = {
  setup_data: { startMs, plan },
  metrics: {
    "storm_established{level:10}": { values: { count: 10 } },
    "storm_dropped{level:10}": { values: { count: 0 } },
    "storm_silent{level:10}": { values: { count: 10 } },
    "storm_establish_ms{level:10}": { values: { count: 10, med: 2, "p(90)": 3, "p(99)": 4 } },
    "storm_established{level:100}": { values: { count: 97 } },
    "storm_failed{level:100}": { values: { count: 3 } },
    "storm_dropped{level:100}": { values: { count: 97 } },
  },
};
const reading = (sec: number, mb: number, fds: number) => ({
  atMs: startMs + sec * 1000,
  rssBytes: mb * 1e6,
  fds,
});

describe("a connection storm's figures per level", () => {
  it("counts each level's streams from its submetrics, with no percentiles where none were timed", () => {
    expect(stormLevelCounts(summary)).toEqual([
      {
        level: 10,
        established: 10,
        failed: 0,
        dropped: 0,
        silent: 10,
        establishMs: { p50: 2, p90: 3, p99: 4 },
        firstEventMs: null,
      },
      {
        level: 100,
        established: 97,
        failed: 3,
        dropped: 97,
        silent: 0,
        establishMs: null,
        firstEventMs: null,
      },
    ]);
  });

  it("takes idle from before the first level and each level from its hold less its first second", () => {
    const readings = [
      reading(0, 10, 8),
      reading(1, 12, 8),
      reading(4.5, 50, 40), // the hold's first second: still settling
      reading(5, 11, 18),
      reading(6, 13, 19),
      reading(13, 31, 108),
      reading(14, 33, 110),
      reading(15, 35, 109),
      reading(17, 90, 9), // after the hold
    ];
    const { idle, levels } = levelFootprints(summary, readings);
    expect(idle).toEqual({ rssBytes: 11e6, fds: 8 });
    expect(levels).toEqual([
      { level: 10, rssBytes: 12e6, fds: 19, rssPerStreamBytes: 100_000, fdsAdded: 11 },
      { level: 100, rssBytes: 33e6, fds: 110, rssPerStreamBytes: 220_000, fdsAdded: 102 },
    ]);
  });

  it("shares the RSS among the streams established when a level did not open them all", () => {
    const readings = [reading(0, 10, 8), reading(13, 31, 108)];
    const counts = stormLevelCounts(summary);
    expect(levelFootprints(summary, readings, counts).levels[1]!.rssPerStreamBytes).toBe(
      Math.round(21e6 / 97),
    );
    expect(levelFootprints(summary, readings).levels[1]!.rssPerStreamBytes).toBe(210_000);
  });

  it("has no figure for a level without readings, and no per-stream figure without an idle one", () => {
    const { idle, levels } = levelFootprints(summary, [reading(13, 31, 108)]);
    expect(idle).toBeNull();
    expect(levels[0]).toEqual({
      level: 10,
      rssBytes: null,
      fds: null,
      rssPerStreamBytes: null,
      fdsAdded: null,
    });
    expect(levels[1]).toMatchObject({ rssBytes: 31e6, fds: 108, rssPerStreamBytes: null, fdsAdded: null });
  });
});

describe("a storm cell's figures", () => {
  it("puts each level's counts beside the server's footprint, RSS shared among the streams held", () => {
    // Idle 10 MB and 8 descriptors; 100 streams asked, 97 held: 21 MB and 99 descriptors more.
    const readings = [reading(0, 10, 8), reading(1, 10, 8), reading(13, 31, 107), reading(14, 31, 105)];
    const figures = stormFigures(summary, readings);
    expect(figures?.idle).toEqual({ rssBytes: 10e6, fds: 8 });
    expect(figures?.levels[1]).toEqual({
      level: 100,
      established: 97,
      failed: 3,
      dropped: 97,
      silent: 0,
      establishMs: null,
      firstEventMs: null,
      rssBytes: 31e6,
      fds: 107,
      rssPerStreamBytes: Math.round(21e6 / 97),
      fdsAdded: 99,
    });
    expect(figures?.levels[0]).toMatchObject({ level: 10, established: 10, rssBytes: null, fds: null });
  });

  it("has RSS but no descriptors where only RSS could be read", () => {
    const noFds = (sec: number, mb: number) => ({ ...reading(sec, mb, 0), fds: null });
    const figures = stormFigures(summary, [noFds(0, 10), noFds(5, 12)]);
    expect(figures?.idle).toEqual({ rssBytes: 10e6, fds: null });
    expect(figures?.levels[0]).toMatchObject({ rssBytes: 12e6, fds: null, fdsAdded: null });
    expect(figures?.levels[0]?.rssPerStreamBytes).toBe(200_000);
  });

  it("is null for a summary that is not a storm's", () => {
    expect(stormFigures({ metrics: {}, setup_data: null }, [])).toBeNull();
    expect(stormFigures({ metrics: {}, setup_data: { startMs: 1, plan: [] } }, [])).toBeNull();
    expect(stormFigures({ metrics: {}, setup_data: { startMs: 1, plan: [{ level: 10 }] } }, [])).toBeNull();
    expect(stormFigures(null, [])).toBeNull();
    expect(stormFigures(summary, [])?.levels).toHaveLength(2);
  });
});
