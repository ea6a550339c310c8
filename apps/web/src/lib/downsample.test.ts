import { describe, expect, it } from "vitest";
import { downsamplePoints, upsertPoint } from "./downsample";
import type { PointDto } from "./dto";
import { pointAt } from "./point-fixture";

const point = pointAt;

describe("downsamplePoints", () => {
  it("returns short series unchanged", () => {
    const series = [point(0), point(1)];
    expect(downsamplePoints(series, 10)).toBe(series);
  });

  it("never returns more points than the limit", () => {
    const series = Array.from({ length: 86_400 }, (_, s) => point(s));
    const out = downsamplePoints(series, 2_000);
    expect(out.length).toBeLessThanOrEqual(2_000);
    expect(out[0]?.second).toBe(0);
  });

  it("averages rates but keeps the worst latency and the peak memory of a bucket", () => {
    const out = downsamplePoints(
      [
        point(0, { rps: 100, p99: 5, rssBytes: 10, cpuPct: 40 }),
        point(1, { rps: 300, p99: 50, rssBytes: 30, cpuPct: null }),
        point(2, { rps: 200, p99: 7 }),
      ],
      2,
    );
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ second: 0, rps: 200, p99: 50, rssBytes: 30, cpuPct: 40 });
    expect(out[1]).toMatchObject({ second: 2, rps: 200 });
  });

  it("keeps a bucket's largest heap and longest GC pause, and null where no second reported one", () => {
    const out = downsamplePoints(
      [
        point(0, { heapUsedBytes: 8, gcPauseMaxMs: 0.5 }),
        point(1, { heapUsedBytes: 12, gcPauseMaxMs: 3 }),
        point(2, { heapUsedBytes: null, gcPauseMaxMs: null }),
        point(3),
      ],
      2,
    );
    expect(out[0]).toMatchObject({ heapUsedBytes: 12, gcPauseMaxMs: 3 });
    expect(out[1]).toMatchObject({ heapUsedBytes: null, gcPauseMaxMs: null });
  });

  it("marks a bucket that touches the warm-up as warm-up", () => {
    const out = downsamplePoints([point(0, { phase: "warmup" }), point(1), point(2), point(3)], 2);
    expect(out.map((p) => p.phase)).toEqual(["warmup", "measure"]);
  });
});

describe("upsertPoint", () => {
  it("appends, replaces the same second, and inserts late seconds in order", () => {
    let series: PointDto[] = [];
    series = upsertPoint(series, point(0));
    series = upsertPoint(series, point(2));
    series = upsertPoint(series, point(1));
    series = upsertPoint(series, point(2, { rps: 999 }));
    expect(series.map((p) => p.second)).toEqual([0, 1, 2]);
    expect(series[2]?.rps).toBe(999);
  });
});
