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
 */
export class PointSink {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly deps: { db: Db; publisher: Redis; log: Logger; retryMs: number },
    private readonly cell: { id: string; runId: string },
    private readonly loadStartT: () => number | null,
    /**
     * Called once, when a write failed for good: the cell has failed, and its load should stop now
     * rather than run on (for hours, in a soak) to a result that will not be kept.
     */
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

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
    this.pushNow(points);
  }

  private pushNow(points: SecondPoint[]): void {
    if (this.early.length > 0) {
      points = [...this.early, ...points];
      this.early = [];
    }
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
    if (this.early.length > 0) this.pushNow([]);
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
