import type { TSecondPoint } from "@perflab/contracts";
import type { ResourceSample } from "./cell-aggregator.ts";
import { createLatencyHistogram, encodeHistogram, type Histogram, latencyStats } from "./histogram.ts";

export type SecondState = {
  t: number;
  requests: number;
  errors: number;
  ops: number;
  measureRequests: number;
  /** Every request's latency… */
  hist: Histogram;
  /** …and the operations' (the scenario's operation method) alone. */
  opHist: Histogram;
  dataSent: number;
  dataReceived: number;
  resources: ResourceSample | null;
};

export const emptySecond = (
  t: number,
  hist = createLatencyHistogram(),
  opHist = createLatencyHistogram(),
): SecondState => ({
  t,
  requests: 0,
  errors: 0,
  ops: 0,
  measureRequests: 0,
  hist,
  opHist,
  dataSent: 0,
  dataReceived: 0,
  resources: null,
});

/** New seconds on the histograms of dropped ones (184 KiB each), emptied, where there are some. */
export class SecondPool {
  private readonly spare: Histogram[] = [];

  take(t: number): SecondState {
    return emptySecond(t, this.histogram(), this.histogram());
  }

  /** A second nothing reads any more: its histograms go to the next ones taken. */
  release(s: SecondState): void {
    this.spare.push(s.hist, s.opHist);
  }

  private histogram(): Histogram {
    const spare = this.spare.pop();
    if (!spare) return createLatencyHistogram();
    spare.reset();
    return spare;
  }
}

/** A second's point, its latency read from `hist` (the operations' or every request's). */
export function toSecondPoint(s: SecondState, hist: Histogram, phase: TSecondPoint["phase"]): TSecondPoint {
  const stats = latencyStats(hist);
  const r = s.resources;
  return {
    t: s.t,
    phase,
    requests: s.requests,
    errors: s.errors,
    ops: s.ops,
    rps: s.requests,
    p50: stats.p50,
    p90: stats.p90,
    p95: stats.p95,
    p99: stats.p99,
    max: stats.maxMs,
    mean: stats.avgMs,
    histogram: hist.totalCount > 0 ? encodeHistogram(hist) : null,
    dataSent: s.dataSent,
    dataReceived: s.dataReceived,
    cpuPct: r?.cpuPct ?? null,
    rssBytes: r?.rssBytes ?? null,
    k6CpuPct: r?.k6CpuPct ?? null,
    k6RssBytes: r?.k6RssBytes ?? null,
    hostCpuPct: r?.hostCpuPct ?? null,
    runtime: r?.runtime ?? null,
  };
}
