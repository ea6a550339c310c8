import { runChannel, type TLiveEvent } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { SecondPoint } from "@perflab/metrics";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";

const big = (v: number | null) => (v === null ? null : BigInt(Math.round(v)));

/**
 * Writes per-second points (idempotent upserts keyed by cell and second, so a late k6 line
 * rewrites its row) and publishes them live. Postgres is the record; a failed publish only
 * costs the live view a point.
 */
export class PointSink {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly deps: { db: Db; publisher: Redis; log: Logger },
    private readonly cell: { id: string; runId: string },
    private readonly loadStartT: () => number | null,
  ) {}

  push(points: SecondPoint[]): void {
    if (points.length === 0) return;
    this.chain = this.chain
      .then(() => this.write(points))
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
    const { db, publisher, log } = this.deps;
    await db.$transaction(
      points.map((p) => {
        const data = {
          second: p.t - start,
          phase: p.phase,
          requests: p.requests,
          errors: p.errors,
          ops: p.ops,
          rps: p.rps,
          latencyP50Ms: p.p50,
          latencyP90Ms: p.p90,
          latencyP95Ms: p.p95,
          latencyP99Ms: p.p99,
          latencyMaxMs: p.max,
          latencyMeanMs: p.mean,
          cpuPct: p.cpuPct,
          rssBytes: big(p.rssBytes),
          k6CpuPct: p.k6CpuPct,
          k6RssBytes: big(p.k6RssBytes),
          hostCpuPct: p.hostCpuPct,
          netRxBytes: big(p.dataSent),
          netTxBytes: big(p.dataReceived),
          runtime: (p.runtime ?? undefined) as never,
          histogram: p.histogram,
        };
        return db.metricPoint.upsert({
          where: { cellId_t: { cellId: this.cell.id, t: new Date(p.t * 1000) } },
          create: { cellId: this.cell.id, t: new Date(p.t * 1000), ...data },
          update: data,
        });
      }),
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
}
