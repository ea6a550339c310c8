import type { TK6IntervalLine, TOperationStats } from "@perflab/contracts";
import {
  addBuckets,
  createLatencyHistogram,
  type Histogram,
  type HistogramBuckets,
  latencyStats,
} from "./histogram.ts";

/**
 * `failed` and `opErrors` are kept apart and compared over the whole window: k6 stamps a request's
 * HTTP failure with its end and the script's op-error count a moment later, so the two can fall in
 * different seconds, where a per-second max would count the one failure twice.
 */
export type OperationState = {
  method: string;
  tool: string;
  count: number;
  failed: number;
  opErrors: number;
  /** Failed requests that hit the client's timeout: counted in `failed` (and opErrors) too. */
  timeouts: number;
  hist: Histogram;
};
/** A group's failed operations: perflab's scripts count every one in opErrors (HTTP failures too); other scripts only HTTP failures. */
export const errorsOf = (failed: number, opErrors: number) => Math.max(failed, opErrors);

/** An operation's failures other than timeouts, which are counted apart (each is in both counts). */
export const errorsApartFromTimeouts = (op: Pick<OperationState, "failed" | "opErrors" | "timeouts">) =>
  Math.max(0, errorsOf(op.failed, op.opErrors) - op.timeouts);

/** Adds one measured group to the operation (method and tool) it belongs to. */
export function countOperation(
  operations: Map<string, OperationState>,
  group: TK6IntervalLine["groups"][number],
  buckets: HistogramBuckets,
): void {
  const key = `${group.method}\u0000${group.tool}`;
  let op = operations.get(key);
  if (!op) {
    op = {
      method: group.method,
      tool: group.tool,
      count: 0,
      failed: 0,
      opErrors: 0,
      timeouts: 0,
      hist: createLatencyHistogram(),
    };
    operations.set(key, op);
  }
  op.count += group.requests;
  op.failed += group.failed;
  op.opErrors += group.opErrors ?? 0;
  op.timeouts += group.timeouts ?? 0;
  addBuckets(op.hist, buckets);
}

/** An operation's summary row: its count, failures and latency percentiles. */
export function operationStats(op: OperationState): TOperationStats {
  const s = latencyStats(op.hist);
  return {
    method: op.method,
    tool: op.tool,
    count: op.count,
    errors: errorsApartFromTimeouts(op),
    timeouts: op.timeouts,
    p50: s.p50,
    p90: s.p90,
    p95: s.p95,
    p99: s.p99,
    avgMs: s.avgMs,
  };
}
