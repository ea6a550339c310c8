import type {
  TCellSummaryData,
  TK6IntervalLine,
  TOperationStats,
  TPhase,
  TSecondPoint,
} from "@perflab/contracts";
import { computeDrift, DRIFT_MIN_SECONDS, type Drift } from "./cell-drift.ts";
import {
  countOperation,
  errorsApartFromTimeouts,
  errorsOf,
  type OperationState,
  operationStats,
} from "./cell-operations.ts";
import { emptySecond, SecondPool, type SecondState, toSecondPoint } from "./cell-second.ts";
import {
  addBuckets,
  createLatencyHistogram,
  decodeBuckets,
  encodeHistogram,
  type Histogram,
  latencyStats,
  latencyStdDevMs,
} from "./histogram.ts";
import { gcSummary } from "./runtime-gc.ts";

export { DRIFT_MIN_SECONDS, type Drift, type DriftMeasure } from "./cell-drift.ts";
export {
  isLoadGeneratorSaturated,
  isMachineBusy,
  isWarmingUp,
  MACHINE_BUSY_SHARE,
  otherCpuPct,
  otherWorkMeasured,
  WARMING_UP_RISE_PCT,
} from "./cell-verdicts.ts";

/** One 1 Hz sample of the processes under observation (server and load generator). */
export type ResourceSample = {
  t: number;
  cpuPct: number | null;
  rssBytes: number | null;
  /** The server's open file descriptors (a connection storm's figures); null or absent where unread. */
  fds?: number | null;
  k6CpuPct: number | null;
  k6RssBytes: number | null;
  hostCpuPct: number | null;
  runtime?: unknown;
};

export type Phase = TPhase;

/** A per-second metric point, ready to be written (idempotently, keyed by t) and published live. */
export type SecondPoint = TSecondPoint;

export type OperationStats = TOperationStats;

/** A cell's summary over its measured window: ZCellSummaryData in @perflab/contracts. */
export type CellSummaryData = TCellSummaryData;

/** The `method` tag of operations when none is given: MCP's tool calls. */
export const DEFAULT_OPERATION_METHOD = "tools/call";
/** Seconds kept after they were emitted, so a late k6 line rewrites the whole row instead of a fragment. */
const KEEP_SECONDS = 30;

/**
 * Turns perflab k6 output lines and resource samples into per-second points and the cell summary.
 * The summary covers requests tagged phase=measure only: warm-up is excluded by the script's own tag,
 * so the worker and k6 agree on which request belongs to which window.
 *
 * Operations (ops, ops/s, requests per op) are the requests whose `method` tag is the scenario's
 * operation method: `tools/call` (the default) for MCP, the HTTP verb for a plain HTTP scenario.
 * Latency (the summary's percentiles and histogram, each second's, drift's p99) is the operations'
 * too, as ops/s is: a session's initialize, notifications and DELETE (four requests a call when
 * each call opens its own) would otherwise dilute a tool call's tail with fast setup requests.
 * With `latency: "auto"` (an uploader's own script, whose requests may not be tool calls), a cell
 * in which no operation ended takes every request's latency instead.
 */
export class CellAggregator {
  private readonly operationMethod: string;
  private readonly seconds = new Map<number, SecondState>();
  private readonly dirty = new Set<number>();
  private readonly pool = new SecondPool();
  private readonly measuredHist = createLatencyHistogram();
  private readonly measuredOpHist = createLatencyHistogram();
  private readonly latencyMode: "operations" | "auto";
  /** Whether any operation ended, in any phase. */
  private sawOp = false;
  private readonly operations = new Map<string, OperationState>();
  private readonly measuredSecondsSeen = new Set<number>();
  private readonly measuredResources: ResourceSample[] = [];
  private measured = { requests: 0, ops: 0, dataSent: 0, dataReceived: 0 };
  private firstMeasuredT = Number.POSITIVE_INFINITY;
  /** Dropped calls per second, summed by summary(), once the measured window's first second is known. */
  private readonly droppedBySecond = new Map<number, number>();
  private sawDropped = false;
  /** The measured window's length when known up front: drift needs its tenths as lines arrive. */
  private readonly measuredSecondsPlanned: number | null;
  /**
   * Per tenth of the measured window: its seconds, the operations that ended in them (whatever
   * their phase tag: a call begun in warm-up that ends in the window's first whole seconds is
   * throughput there), and the merged histograms of its requests and of its operations.
   */
  private readonly tenths: { seconds: Set<number>; ops: number; hist: Histogram; opHist: Histogram }[] = [];
  /**
   * When the measured window began by plan (k6's start plus the warm-up, in ms), once the start
   * line told it: the window's seconds then follow the plan rather than the first measured call to
   * end, which a slow server delays (and a stalled one never gives).
   */
  private plannedStartMs: number | null = null;
  /** Resource samples that came before the plan was known, sorted into the window when it is. */
  private pendingResources: ResourceSample[] = [];
  /** The latest second a k6 line carried: seconds are dropped relative to k6's clock, not ours. */
  private latestLineT = Number.NEGATIVE_INFINITY;
  /** Seconds before this were emitted and dropped: a line for one is counted, never re-emitted. */
  private droppedBefore = Number.NEGATIVE_INFINITY;

  constructor(
    options: { operationMethod?: string; measuredSeconds?: number; latency?: "operations" | "auto" } = {},
  ) {
    this.operationMethod = options.operationMethod ?? DEFAULT_OPERATION_METHOD;
    this.latencyMode = options.latency ?? "operations";
    this.measuredSecondsPlanned = options.measuredSeconds ?? null;
  }

  /**
   * Sets the measured window's planned start (k6's start line time plus the warm-up, in Unix ms).
   * With the planned length, the summary's CPU and memory then average the whole seconds inside
   * the window, stalls included and the part-seconds at its edges left out; dropped calls and drift
   * count from its first second.
   */
  setMeasureStart(ms: number): void {
    this.plannedStartMs = ms;
    const pending = this.pendingResources;
    this.pendingResources = [];
    for (const sample of pending) this.keepIfMeasured(sample);
  }

  /** The first second of the measured window: by plan when known, else the first with a measured call. */
  private get windowFirstT(): number {
    return this.plannedStartMs !== null ? Math.floor(this.plannedStartMs / 1000) : this.firstMeasuredT;
  }

  /**
   * The whole seconds inside the planned window [start, start + length), or null without a plan.
   * A sample for second t covers [t, t + 1).
   */
  private get wholeSeconds(): { from: number; to: number } | null {
    if (this.plannedStartMs === null || this.measuredSecondsPlanned === null) return null;
    const from = Math.ceil(this.plannedStartMs / 1000);
    const to = Math.floor((this.plannedStartMs + this.measuredSecondsPlanned * 1000) / 1000) - 1;
    return { from, to };
  }

  private keepIfMeasured(sample: ResourceSample): void {
    const whole = this.wholeSeconds;
    if (whole) {
      if (sample.t >= whole.from && sample.t <= whole.to) this.measuredResources.push(sample);
    } else if (this.measuredSecondsPlanned !== null && this.plannedStartMs === null) {
      this.pendingResources.push(sample);
    }
  }

  /**
   * The tenth of the measured window second `t` falls in, or null without drift. The window's first
   * and last wall-clock seconds are cut by its start and end (k6 starts mid-second): the tenths are
   * of the whole seconds between, so a tenth of a 20-second window is not half a second short.
   */
  private tenthOf(t: number) {
    const length = this.measuredSecondsPlanned;
    if (length === null || length < DRIFT_MIN_SECONDS || !Number.isFinite(this.windowFirstT)) return null;
    const i = t - this.windowFirstT;
    if (i < 1 || i > length - 1) return null;
    const index = Math.min(9, Math.floor(((i - 1) * 10) / (length - 1)));
    while (this.tenths.length <= index) {
      this.tenths.push({
        seconds: new Set(),
        ops: 0,
        hist: createLatencyHistogram(),
        opHist: createLatencyHistogram(),
      });
    }
    const tenth = this.tenths[index]!;
    tenth.seconds.add(t);
    return tenth;
  }

  /**
   * Adds one interval line; returns how many latencies each of its groups' histograms holds, in the
   * groups' order (decoded here once, so a caller checking them against the requests need not again).
   */
  addInterval(line: TK6IntervalLine): number[] {
    this.latestLineT = Math.max(this.latestLineT, line.t);
    const histogramCounts: number[] = [];
    // A line for a second already emitted and dropped counts in the summary, but a fresh point
    // made of it alone would overwrite the stored second with a fragment: it gets none.
    const second = line.t < this.droppedBefore ? emptySecond(line.t) : this.second(line.t);
    let measureRequestsInLine = 0;
    // Tenths are wall-clock seconds strictly inside the window: every request that ended in them
    // counts, whichever phase its iteration began in (counting only phase=measure would leave out,
    // in the first tenth alone, the calls begun just before the window: a steady server with
    // second-long calls would look 30 % faster at the end than at the start).
    const tenth = this.tenthOf(line.t);
    for (const group of line.groups) {
      const hist = decodeBuckets(group.hist);
      histogramCounts.push(hist.total);
      const isOp = group.method === this.operationMethod;
      // A second's own count (a chart's): a failure whose two counts straddle seconds shows in both.
      second.requests += group.requests;
      second.errors += errorsOf(group.failed, group.opErrors ?? 0);
      addBuckets(second.hist, hist);
      if (tenth) addBuckets(tenth.hist, hist);
      if (isOp) {
        second.ops += group.requests;
        addBuckets(second.opHist, hist);
        if (tenth) {
          tenth.ops += group.requests;
          addBuckets(tenth.opHist, hist);
        }
        if (group.requests > 0) this.sawOp = true;
      }
      if (group.phase !== "measure") continue;
      measureRequestsInLine += group.requests;
      this.measured.requests += group.requests;
      addBuckets(this.measuredHist, hist);
      if (isOp) {
        this.measured.ops += group.requests;
        addBuckets(this.measuredOpHist, hist);
      }
      countOperation(this.operations, group, hist);
    }
    second.measureRequests += measureRequestsInLine;
    if (measureRequestsInLine > 0) this.firstMeasuredT = Math.min(this.firstMeasuredT, line.t);
    second.dataSent += line.dataSent;
    second.dataReceived += line.dataReceived;
    if (line.dropped !== undefined) {
      this.sawDropped = true;
      if (line.dropped > 0)
        this.droppedBySecond.set(line.t, (this.droppedBySecond.get(line.t) ?? 0) + line.dropped);
    }
    if (measureRequestsInLine > 0) {
      this.firstMeasuredT = Math.min(this.firstMeasuredT, line.t);
      this.measured.dataSent += line.dataSent;
      this.measured.dataReceived += line.dataReceived;
      if (!this.measuredSecondsSeen.has(line.t)) {
        this.measuredSecondsSeen.add(line.t);
        // Without a planned window, the seconds with a measured call are the window.
        if (second.resources && this.wholeSeconds === null) this.measuredResources.push(second.resources);
      }
    }
    if (line.t >= this.droppedBefore) this.dirty.add(line.t);
    return histogramCounts;
  }

  addResources(sample: ResourceSample): void {
    if (
      this.wholeSeconds !== null ||
      (this.measuredSecondsPlanned !== null && this.plannedStartMs === null)
    ) {
      this.keepIfMeasured(sample);
    } else if (this.measuredSecondsSeen.has(sample.t)) {
      this.measuredResources.push(sample);
    }
    if (sample.t < this.droppedBefore) return;
    const second = this.second(sample.t);
    second.resources = sample;
    this.dirty.add(sample.t);
  }

  /** Points whose second ended at least `lagSec` before `nowT`; later lines for them are re-emitted whole. */
  takeReadyPoints(nowT: number, lagSec = 2): SecondPoint[] {
    const ready = [...this.dirty].filter((t) => t <= nowT - lagSec).sort((a, b) => a - b);
    const points = ready.map((t) => {
      this.dirty.delete(t);
      return this.toPoint(this.seconds.get(t)!);
    });
    // Dropped by k6's clock (its lines' seconds), not only ours: a k6 whose clock runs behind the
    // worker's (on another machine) still has its late lines folded into whole seconds.
    const before = Math.min(nowT, this.latestLineT) - KEEP_SECONDS;
    for (const t of this.seconds.keys()) {
      if (t < before && !this.dirty.has(t)) {
        this.pool.release(this.seconds.get(t)!);
        this.seconds.delete(t);
        this.droppedBefore = Math.max(this.droppedBefore, t + 1);
      }
    }
    return points;
  }

  takeAllPoints(): SecondPoint[] {
    return this.takeReadyPoints(Number.POSITIVE_INFINITY, 0);
  }

  /** The histogram latency is read from: the operations', or (auto, none ended) every request's. */
  private latencyHist(of: { hist: Histogram; opHist: Histogram }): Histogram {
    return this.latencyMode === "auto" && !this.sawOp ? of.hist : of.opHist;
  }

  summary({ durationSec }: { durationSec: number }): CellSummaryData {
    const measuredHist = this.latencyHist({ hist: this.measuredHist, opHist: this.measuredOpHist });
    const latency = latencyStats(measuredHist);
    const seconds = [...this.measuredSecondsSeen].sort((a, b) => a - b);
    const res = this.measuredResources;
    const values = (pick: (r: ResourceSample) => number | null) =>
      res.map(pick).filter((v): v is number => v !== null && Number.isFinite(v));
    const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    // A loop, not Math.max(...xs): a day-long window has 86,400 samples.
    const peak = (xs: number[]) => (xs.length ? xs.reduce((a, b) => Math.max(a, b), xs[0]!) : null);
    const cpu = values((r) => r.cpuPct);
    const rss = values((r) => r.rssBytes);
    const k6Cpu = values((r) => r.k6CpuPct);
    const k6Rss = values((r) => r.k6RssBytes);
    const hostCpu = values((r) => r.hostCpuPct);
    const { requests, ops } = this.measured;
    let errors = 0;
    let timeouts = 0;
    for (const op of this.operations.values()) {
      errors += errorsApartFromTimeouts(op);
      timeouts += op.timeouts;
    }
    return {
      requests,
      errors,
      timeouts,
      ops,
      httpRps: durationSec > 0 ? requests / durationSec : 0,
      opsRps: durationSec > 0 ? ops / durationSec : 0,
      requestsPerOp: ops > 0 ? requests / ops : null,
      latency,
      operations: [...this.operations.values()].sort((a, b) => b.count - a.count).map(operationStats),
      histogram: encodeHistogram(measuredHist),
      measuredSeconds: durationSec,
      windowStart: seconds[0] ?? null,
      windowEnd: seconds.length ? seconds[seconds.length - 1]! + 1 : null,
      dataSent: this.measured.dataSent,
      dataReceived: this.measured.dataReceived,
      cpuAvgPct: avg(cpu),
      cpuPeakPct: peak(cpu),
      rssAvgBytes: avg(rss),
      rssPeakBytes: peak(rss),
      k6CpuAvgPct: avg(k6Cpu),
      k6CpuPeakPct: peak(k6Cpu),
      k6RssPeakBytes: peak(k6Rss),
      hostCpuAvgPct: avg(hostCpu),
      droppedCalls: this.sawDropped ? this.measuredDropped() : null,
      drift: this.drift(durationSec),
      latencyStddevMs: latencyStdDevMs(measuredHist),
      ...gcSummary(res),
    };
  }

  private measuredDropped(): number {
    let from = this.windowFirstT;
    let to = Number.POSITIVE_INFINITY;
    if (this.plannedStartMs !== null && this.measuredSecondsPlanned !== null) {
      // The seconds the planned window touches: a call dropped before the first measured call
      // ended (the overloaded case) is in them.
      to = Math.ceil((this.plannedStartMs + this.measuredSecondsPlanned * 1000) / 1000) - 1;
    } else if (from === Number.POSITIVE_INFINITY) {
      // No measured call ended (a server that hung through the window): its drops must not vanish.
      // The window is then the planned number of seconds up to the last one with drops, else all.
      const last = Math.max(...this.droppedBySecond.keys());
      from =
        this.measuredSecondsPlanned === null
          ? Number.NEGATIVE_INFINITY
          : last - this.measuredSecondsPlanned + 1;
    }
    let n = 0;
    for (const [t, dropped] of this.droppedBySecond) if (t >= from && t <= to) n += dropped;
    return n;
  }

  private drift(durationSec: number): Drift | null {
    if (this.measuredSecondsPlanned === null || durationSec < DRIFT_MIN_SECONDS || this.tenths.length === 0) {
      return null;
    }
    return computeDrift({
      durationSec,
      tenths: this.tenths,
      resources: this.measuredResources,
      windowFirstT: this.windowFirstT,
      latencyHist: (of) => this.latencyHist(of),
    });
  }

  private second(t: number): SecondState {
    let s = this.seconds.get(t);
    if (!s) {
      s = this.pool.take(t);
      this.seconds.set(t, s);
    }
    return s;
  }

  private toPoint(s: SecondState): SecondPoint {
    // A quiet second after measurement began (a stall, the tail) still belongs to the measured window.
    const phase = s.measureRequests > 0 || s.t >= this.windowFirstT ? "measure" : "warmup";
    return toSecondPoint(s, this.latencyHist(s), phase);
  }
}
