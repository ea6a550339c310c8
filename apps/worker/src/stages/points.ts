import { runChannel, type TLiveEvent } from "@perflab/contracts";
import { type Db, Prisma } from "@perflab/db";
import type { SecondPoint } from "@perflab/metrics";
import type { Redis } from "ioredis";
import { withDbRetry } from "../db-retry.ts";
import type { Logger } from "../logger.ts";

const big = (v: number | null) => (v === null ? null : BigInt(Math.round(v)));

/**
 * Writes per-second points (idempotent upserts keyed by cell and second, so a late k6 line
 * rewrites its row) and publishes them live. Postgres is the record; a failed publish only
 * costs the live view a point. While the database does not answer (up to `retryMs`), the seconds
 * wait in order and are written when it is back; the live view resumes with them.
 */
export class PointSink {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly deps: { db: Db; publisher: Redis; log: Logger; retryMs: number },
    private readonly cell: { id: string; runId: string },
    private readonly loadStartT: () => number | null,
  ) {}

  push(points: SecondPoint[]): void {
    if (points.length === 0) return;
    // After a write that failed for good, the cell has failed: later seconds are not written, so
    // a long outage costs one retry window, not one per queued second.
    this.chain = this.chain
      .then(() => (this.failure ? undefined : this.write(points)))
      .catch((error) => {
        this.failure ??= error;
      });
  }

  /** Waits for every queued write; throws if any failed, so a cell never ends with points missing silently. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private async write(points: SecondPoint[]): Promise<void> {
    const start = this.loadStartT() ?? points[0]!.t;
    const { publisher, log } = this.deps;
    // One multi-row upsert in plain SQL: it runs every second, and Prisma's query compiler would
    // cost more CPU than the statement itself.
    const rows = points.map(
      (p) => Prisma.sql`(${this.cell.id}, ${new Date(p.t * 1000)}, ${p.t - start}, ${p.phase}::metric_phase,
        ${p.requests}, ${p.errors}, ${p.ops}, ${p.rps}, ${p.p50}, ${p.p90}, ${p.p95}, ${p.p99}, ${p.max}, ${p.mean},
        ${p.cpuPct}, ${big(p.rssBytes)}, ${p.k6CpuPct}, ${big(p.k6RssBytes)}, ${p.hostCpuPct},
        ${big(p.dataSent)}, ${big(p.dataReceived)}, ${p.runtime === null || p.runtime === undefined ? null : JSON.stringify(p.runtime)}::jsonb,
        ${p.histogram})`,
    );
    await withDbRetry(
      `seconds ${points[0]!.t - start}–${points.at(-1)!.t - start} of the cell`,
      () => this.insert(rows),
      { log, retryMs: this.deps.retryMs },
    );
    const pipeline = publisher.pipeline();
    for (const p of points) {
      const event: TLiveEvent = {
        type: "point",
        cellId: this.cell.id,
        t: p.t,
        second: p.t - start,
        phase: p.phase,
        rps: p.rps,
        errors: p.errors,
        p50: p.p50,
        p95: p.p95,
        p99: p.p99,
        cpuPct: p.cpuPct,
        rssBytes: p.rssBytes,
        k6CpuPct: p.k6CpuPct,
      };
      pipeline.publish(runChannel(this.cell.runId), JSON.stringify(event));
    }
    await pipeline.exec().catch((error) => log.warn({ err: error }, "live publish failed"));
  }

  private async insert(rows: Prisma.Sql[]): Promise<void> {
    await this.deps.db.$executeRaw`
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
        histogram = EXCLUDED.histogram`;
  }
}
