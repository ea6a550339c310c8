import { type TK6IntervalGroup, type TK6IntervalLine, ZK6IntervalGroup } from "@perflab/contracts";
import { createLatencyHistogram, encodeHistogram, type Histogram } from "../histogram.ts";
import { K6OutputDecoder, type K6OutputOptions, type ParsedK6Output } from "./decoder.ts";
import { IngestError, invalidBody } from "./errors.ts";
import { type FastState, fastState, readK6JsonPointAt } from "./k6-json-fast.ts";
import { checkWholeLine, type K6Point, readK6JsonLine } from "./k6-json-point.ts";

/** k6's `--out json` carries no version: what the cell records instead. */
export const K6_JSON_VERSION = "unknown (k6 --out json)";
/** Seconds a second stays open for late samples (k6 flushes its JSON output about once a second). */
const LAG_SECONDS = 5;
/** Distinct (method, label) pairs kept; the rest are counted as one "(other)" label, as k6 warns of high-cardinality tags. */
const MAX_LABELS = 400;

/** k6's error_code tag of a request that hit its `timeout` param. */
const K6_TIMEOUT_ERROR_CODE = "1050";

type Group = Omit<TK6IntervalGroup, "hist" | "phase"> & { phase: string | null; hist: Histogram | null };
type GroupId = { phase: string | null; method: string; tool: string; key: string };
type Second = {
  t: number;
  groups: Map<string, Group>;
  iterations: number;
  dropped: number;
  dataSent: number;
  dataReceived: number;
  vus: number;
};

/**
 * Reads k6's `--out json` NDJSON (one Point per sample) into per-second lines of perflab's own shape,
 * handed to the same decoder perflab's output goes through: every latency sample is recorded in a
 * lab HDR histogram (histogram.ts), so percentiles are exact to its precision, per second and per
 * group of tags. Groups as perflab's k6 output groups: `phase`, `method` (perflab's scripts tag the
 * JSON-RPC method there), `tool`, else a user's `name` tag (k6 sets it to the URL). Samples without a
 * phase tag are warm-up or measured by their second against the query's warm-up.
 */
export class K6JsonDecoder {
  private readonly inner: K6OutputDecoder;
  private readonly seconds = new Map<number, Second>();
  private readonly fast: FastState = fastState();
  private readonly labels = new Set<string>();
  private readonly groupIds = new WeakMap<Record<string, string>, GroupId>();
  private lineNumber = 0;
  /** The last line fed, trimmed: empty when the output ended with a newline, as k6 writes it. */
  private last = "";
  private lines = 0;
  private points = 0;
  private firstMs = Number.POSITIVE_INFINITY;
  private testStartMs: number | null = null;
  private latestT = Number.NEGATIVE_INFINITY;
  /** The run's start (ms), once the first second was handed over. */
  private runMs: number | null = null;

  constructor(private readonly options: K6OutputOptions = {}) {
    this.inner = new K6OutputDecoder(options);
  }

  /** One line, without its newline. */
  feed(text: string): void {
    const n = ++this.lineNumber;
    const raw = text.trim();
    this.last = raw;
    if (!raw) return;
    this.lines++;
    this.take(n, readK6JsonLine(n, raw, this.fast.times));
  }

  /**
   * Whole lines, each ended by its newline (a block of lineBlocksOf, decoded): read as `feed` reads
   * them, but a line exactly as k6 writes it is read where it lies in the block, without its own
   * string or a JSON parse of all of it (readK6JsonPointAt); any other line goes through `feed`.
   */
  feedLines(text: string): void {
    for (let from = 0; from < text.length; ) {
      const to = text.indexOf("\n", from);
      if (to === -1) {
        this.feed(text.slice(from));
        return;
      }
      const point = readK6JsonPointAt(text, from, to, this.fast);
      if (point === undefined) this.feed(text.slice(from, to));
      else {
        this.lines++;
        this.take(++this.lineNumber, point);
      }
      from = to + 1;
    }
    this.last = "";
  }

  private take(n: number, point: K6Point | null): void {
    if (!point) return;
    this.points++;
    if (point.kind === "testStart") {
      this.testStartMs ??= Math.round(point.value);
      return;
    }
    this.firstMs = Math.min(this.firstMs, point.ms);
    this.add(n, point);
    const t = Math.floor(point.ms / 1000);
    if (t > this.latestT) {
      this.latestT = t;
      this.flush(n, t - LAG_SECONDS);
    }
  }

  end(): ParsedK6Output {
    // k6 ends every line with a newline: a last line without one was cut short in transfer, and
    // a line of a metric the lab skips unread must not hide that.
    if (this.last) checkWholeLine(this.lineNumber, this.last);
    if (this.points === 0) {
      throw invalidBody(
        "has no Point lines of http_reqs or http_req_duration",
        "The k6 --out json output holds no request samples: upload the whole file k6 wrote with --out json=<file>.",
      );
    }
    this.flush(this.lineNumber, Number.POSITIVE_INFINITY);
    this.inner.accept(this.lineNumber, { type: "end" });
    return { ...this.inner.end(), lines: this.lines };
  }

  private add(n: number, point: K6Point): void {
    const second = this.second(Math.floor(point.ms / 1000));
    const { value } = point;
    switch (point.kind) {
      case "duration": {
        const group = this.group(n, second, point.tags);
        group.hist ??= createLatencyHistogram();
        group.hist.recordValue(Math.max(1, Math.round(value * 1000)));
        return;
      }
      case "reqs":
        this.group(n, second, point.tags).requests += value;
        return;
      case "failed":
        if (value !== 0) {
          const group = this.group(n, second, point.tags);
          group.failed++;
          // k6's request timeout, counted apart as perflab's own output does.
          if (point.tags.error_code === K6_TIMEOUT_ERROR_CODE) group.timeouts = (group.timeouts ?? 0) + 1;
        }
        return;
      case "opErrors":
        this.group(n, second, point.tags).opErrors += value;
        return;
      case "vus":
        second.vus = Math.max(second.vus, Math.round(value));
        return;
      case "testStart":
        return;
      default:
        second[point.kind] += value;
    }
  }

  private second(t: number): Second {
    let second = this.seconds.get(t);
    if (!second) {
      second = { t, groups: new Map(), iterations: 0, dropped: 0, dataSent: 0, dataReceived: 0, vus: 0 };
      this.seconds.set(t, second);
    }
    return second;
  }

  private group(n: number, second: Second, tags: Record<string, string>): Group {
    let id = this.groupIds.get(tags);
    if (!id) {
      id = this.groupId(n, tags);
      this.groupIds.set(tags, id);
    }
    let group = second.groups.get(id.key);
    if (!group) {
      const { phase, method, tool } = id;
      group = { phase, method, tool, requests: 0, failed: 0, opErrors: 0, timeouts: 0, hist: null };
      second.groups.set(id.key, group);
    }
    return group;
  }

  /**
   * The group a set of tags counts in. Kept per tags object (the fast reading shares one per
   * distinct text): a label once admitted stays, and once the labels are full no other is admitted.
   */
  private groupId(n: number, tags: Record<string, string>): GroupId {
    const phase = tags.phase ?? null;
    const method = tags.method ?? "";
    let tool = tags.tool ?? tags.name ?? "";
    if (!this.labels.has(`${method}\u0000${tool}`)) {
      if (this.labels.size >= MAX_LABELS) tool = "(other)";
      else this.admitLabel(n, phase, method, tool);
    }
    return { phase, method, tool, key: `${phase}\u0000${method}\u0000${tool}` };
  }

  /** A new label is checked once as perflab's own lines' tags are (length, NUL, well-formed text). */
  private admitLabel(n: number, phase: string | null, method: string, tool: string): void {
    const { shape } = ZK6IntervalGroup;
    for (const [name, value] of [
      ["phase", phase ?? ""],
      ["method", method],
      ["tool", tool],
    ] as const) {
      const parsed = shape.phase.safeParse(value);
      if (!parsed.success) {
        const reason = parsed.error.issues[0]?.message ?? "is not a tag the lab can store";
        throw new IngestError(
          `Line ${n} of the k6 output has a ${name} tag the lab cannot store.`,
          `line ${n}`,
          `data.tags.${name}: ${reason}`,
        );
      }
    }
    this.labels.add(`${method}\u0000${tool}`);
  }

  /** Hands over every second before `beforeT` as one of perflab's interval lines. */
  private flush(n: number, beforeT: number): void {
    const ready = [...this.seconds.keys()].filter((t) => t < beforeT).sort((a, b) => a - b);
    if (ready.length === 0) return;
    if (this.runMs === null) this.begin(n);
    for (const t of ready) {
      const second = this.seconds.get(t)!;
      this.seconds.delete(t);
      this.inner.accept(n, this.intervalLine(second));
    }
  }

  /** The start and run lines: the run began at perflab's test-start gauge, else at the first sample. */
  private begin(n: number): void {
    const startMs = Math.floor(Math.min(this.firstMs, this.testStartMs ?? this.firstMs));
    this.runMs = Math.max(startMs, this.testStartMs ?? startMs);
    this.inner.accept(n, { type: "start", t: startMs, k6: K6_JSON_VERSION });
    this.inner.accept(n, { type: "run", t: this.runMs });
  }

  private intervalLine(second: Second): TK6IntervalLine {
    const { warmupSeconds } = this.options;
    const measureFromT =
      warmupSeconds === undefined ? Number.NEGATIVE_INFINITY : (this.runMs! + warmupSeconds * 1000) / 1000;
    const groups = [...second.groups.values()].map((g) => ({
      phase: g.phase ?? (second.t >= measureFromT ? "measure" : "warmup"),
      method: g.method,
      tool: g.tool,
      requests: g.requests,
      failed: g.failed,
      opErrors: g.opErrors,
      timeouts: g.timeouts ?? 0,
      hist: encodeHistogram(g.hist ?? createLatencyHistogram()),
    }));
    return {
      type: "interval",
      t: second.t,
      groups,
      iterations: second.iterations,
      dropped: second.dropped,
      dataSent: second.dataSent,
      dataReceived: second.dataReceived,
      vus: second.vus,
    };
  }
}
