import { livePointEvent, runChannel } from "@perflab/contracts";
import { type Db, upsertMetricPoints } from "@perflab/db";
import type { SecondPoint } from "@perflab/metrics";
import type { Redis } from "ioredis";
import { withDbRetry } from "../db-retry.ts";
import type { Logger } from "../logger.ts";

/**
 * Writes per-second points (idempotent upserts keyed by cell and second, so a late k6 line
 * rewrites its row) and publishes them live. Postgres is the record; a failed publish only
 * costs the live view a point. While the database does not answer (up to `retryMs`), the seconds
 * wait in order and are written when it is back; the live view resumes with them.
 *
 * Measured seconds go out `batchSeconds` at a time: each write wakes the worker, Postgres, Redis
 * and the web app while the server is measured, so fewer of them disturb it less. The live view
 * then moves in steps; what is stored is the same (bench/perflab-vs-bare.ts, docs/fidelity.md).
 */
export class PointSink {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  /** Measured seconds gathered for the next write, by second: a late line's version replaces its own. */
  private waiting = new Map<number, SecondPoint>();
  private lastWriteAt = 0;
  private readonly batchMs: number;

  constructor(
    private readonly deps: { db: Db; publisher: Redis; log: Logger; retryMs: number },
    private readonly cell: { id: string; runId: string },
    private readonly loadStartT: () => number | null,
    /**
     * Called once, when a write failed for good: the cell has failed, and its load should stop now
     * rather than run on (for hours, in a soak) to a result that will not be kept.
     */
    private readonly onFailure: (error: unknown) => void = () => {},
    options: { batchSeconds?: number } = {},
  ) {
    this.batchMs = Math.max(1, options.batchSeconds ?? 1) * 1000;
  }

  /** Seconds sampled before k6's start line said when the load began: written once it has. */
  private early: SecondPoint[] = [];

  push(points: SecondPoint[]): void {
    if (points.length === 0) return;
    // A second's number counts from the load's start: until k6 has said when that was (a slow
    // container start, thousands of VUs to set up), the seconds sampled wait, rather than being
    // numbered from the first of them and never renumbered.
    if (this.loadStartT() === null) {
      this.early.push(...points);
      return;
    }
    for (const point of points) this.waiting.set(point.t, point);
    // Warm-up seconds go out as they come (nothing is measured yet); measured ones once a batch is due.
    const measured = points.some((p) => p.phase === "measure");
    if (this.batchMs > 1000 && measured && Date.now() - this.lastWriteAt < this.batchMs) return;
    this.pushNow();
  }

  private pushNow(): void {
    // One row per second in a statement (Postgres refuses an upsert that touches a row twice): the
    // latest version of each second, the early ones first.
    const latest = new Map<number, SecondPoint>();
    for (const point of [...this.early, ...this.waiting.values()]) latest.set(point.t, point);
    const points = [...latest.values()].sort((a, b) => a.t - b.t);
    this.early = [];
    this.waiting = new Map();
    this.lastWriteAt = Date.now();
    if (points.length === 0) return;
    // After a write that failed for good, the cell has failed: later seconds are not written, so
    // a long outage costs one retry window, not one per queued second.
    this.chain = this.chain
      .then(() => (this.failure ? undefined : this.write(points)))
      .catch((error) => {
        if (this.failure) return;
        this.failure = error;
        this.onFailure(error);
      });
  }

  /** Waits for every queued write; throws if any failed, so a cell never ends with points missing silently. */
  async flush(): Promise<void> {
    // No start line came (k6 failed before it): the early seconds count from the first of them.
    this.pushNow();
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private async write(points: SecondPoint[]): Promise<void> {
    const start = this.loadStartT() ?? points[0]!.t;
    const { publisher, log } = this.deps;
    // Multi-row upserts in plain SQL: they run every second, and Prisma's query compiler would
    // cost more CPU than the statement itself.
    await withDbRetry(
      `seconds ${points[0]!.t - start}–${points.at(-1)!.t - start} of the cell`,
      () => upsertMetricPoints(this.deps.db, this.cell.id, points, start),
      { log, retryMs: this.deps.retryMs },
    );
    const pipeline = publisher.pipeline();
    for (const p of points) {
      const event = livePointEvent(this.cell.id, p, start);
      pipeline.publish(runChannel(this.cell.runId), JSON.stringify(event));
    }
    await pipeline.exec().catch((error) => log.warn({ err: error }, "live publish failed"));
  }
}
