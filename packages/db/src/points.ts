import type { SecondPoint } from "@perflab/metrics";
import { Prisma } from "./generated/prisma/client.ts";

/** Rows per statement: 23 bind parameters each stay under Postgres' 65,535. */
export const METRIC_POINT_ROWS_PER_STATEMENT = 2_000;

/** Whatever can run a raw statement: the client or an interactive transaction's. */
type RawExecutor = { $executeRaw: (query: Prisma.Sql) => Prisma.PrismaPromise<number> };

const big = (v: number | null) => (v === null ? null : BigInt(Math.round(v)));

/**
 * Writes per-second points as `metric_points` rows, `second` counted from `loadStartT` (unix
 * seconds), in multi-row upserts keyed by cell and second: a late line's second rewrites its row.
 * Plain SQL, not `createMany`: Prisma's query compiler cost ~3 ms and ~70 KiB of memory a row,
 * many times the statement itself (bench/upload.ts).
 */
export async function upsertMetricPoints(
  db: RawExecutor,
  cellId: string,
  points: readonly SecondPoint[],
  loadStartT: number,
): Promise<void> {
  for (let i = 0; i < points.length; i += METRIC_POINT_ROWS_PER_STATEMENT) {
    const rows = points.slice(i, i + METRIC_POINT_ROWS_PER_STATEMENT).map(
      (p) => Prisma.sql`(${cellId}, ${new Date(p.t * 1000)}, ${p.t - loadStartT}, ${p.phase}::metric_phase,
        ${p.requests}, ${p.errors}, ${p.ops}, ${p.rps}, ${p.p50}, ${p.p90}, ${p.p95}, ${p.p99}, ${p.max}, ${p.mean},
        ${p.cpuPct}, ${big(p.rssBytes)}, ${p.k6CpuPct}, ${big(p.k6RssBytes)}, ${p.hostCpuPct},
        ${big(p.dataSent)}, ${big(p.dataReceived)}, ${p.runtime === null || p.runtime === undefined ? null : JSON.stringify(p.runtime)}::jsonb,
        ${p.histogram})`,
    );
    await db.$executeRaw(Prisma.sql`
      INSERT INTO metric_points (cell_id, t, second, phase, requests, errors, ops, rps,
        latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms, latency_max_ms, latency_mean_ms,
        cpu_pct, rss_bytes, k6_cpu_pct, k6_rss_bytes, host_cpu_pct, net_rx_bytes, net_tx_bytes, runtime, histogram)
      VALUES ${Prisma.join(rows)}
      ON CONFLICT (cell_id, t) DO UPDATE SET
        second = EXCLUDED.second, phase = EXCLUDED.phase, requests = EXCLUDED.requests, errors = EXCLUDED.errors,
        ops = EXCLUDED.ops, rps = EXCLUDED.rps, latency_p50_ms = EXCLUDED.latency_p50_ms,
        latency_p90_ms = EXCLUDED.latency_p90_ms, latency_p95_ms = EXCLUDED.latency_p95_ms,
        latency_p99_ms = EXCLUDED.latency_p99_ms, latency_max_ms = EXCLUDED.latency_max_ms,
        latency_mean_ms = EXCLUDED.latency_mean_ms, cpu_pct = EXCLUDED.cpu_pct, rss_bytes = EXCLUDED.rss_bytes,
        k6_cpu_pct = EXCLUDED.k6_cpu_pct, k6_rss_bytes = EXCLUDED.k6_rss_bytes, host_cpu_pct = EXCLUDED.host_cpu_pct,
        net_rx_bytes = EXCLUDED.net_rx_bytes, net_tx_bytes = EXCLUDED.net_tx_bytes, runtime = EXCLUDED.runtime,
        histogram = EXCLUDED.histogram`);
  }
}
