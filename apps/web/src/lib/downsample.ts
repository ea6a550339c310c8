import { maxOf as max, meanOf as mean } from "@perflab/metrics/stats";
import type { PointDto } from "./dto";

/** Enough for a smooth chart; a 24-hour cell (86,400 seconds) is cut to buckets of 44 s. */
export const MAX_POINTS_PER_CELL = 2_000;

/**
 * Merges consecutive seconds into at most `limit` buckets. Rates and CPU are averaged; latency
 * percentiles, RSS, heap and the longest GC pause keep the bucket's worst second, since averaging
 * them would hide spikes.
 */
export function downsamplePoints(points: PointDto[], limit: number = MAX_POINTS_PER_CELL): PointDto[] {
  if (points.length <= limit) return points;
  const size = Math.ceil(points.length / limit);
  const out: PointDto[] = [];
  for (let start = 0; start < points.length; start += size) {
    const bucket = points.slice(start, start + size);
    const first = bucket[0]!;
    const pick = <K extends keyof PointDto>(key: K) => bucket.map((p) => p[key] as number | null);
    out.push({
      type: "point",
      cellId: first.cellId,
      t: first.t,
      second: first.second,
      phase: bucket.some((p) => p.phase === "warmup") ? "warmup" : "measure",
      rps: mean(pick("rps")) ?? 0,
      errors: mean(pick("errors")) ?? 0,
      p50: max(pick("p50")),
      p95: max(pick("p95")),
      p99: max(pick("p99")),
      cpuPct: mean(pick("cpuPct")),
      rssBytes: max(pick("rssBytes")),
      k6CpuPct: mean(pick("k6CpuPct")),
      heapUsedBytes: max(pick("heapUsedBytes").map((v) => v ?? null)),
      gcPauseMaxMs: max(pick("gcPauseMaxMs").map((v) => v ?? null)),
    });
  }
  return out;
}

/** Inserts or replaces the point of the same second, keeping the series ordered by second. */
export function upsertPoint(series: PointDto[], point: PointDto): PointDto[] {
  const last = series[series.length - 1];
  if (!last || last.second < point.second) return [...series, point];
  const index = series.findIndex((p) => p.second >= point.second);
  const next = series.slice();
  if (series[index]!.second === point.second) next[index] = point;
  else next.splice(index, 0, point);
  return next;
}
