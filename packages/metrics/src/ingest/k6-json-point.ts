import { invalidLine } from "./errors.ts";

/** The metrics of k6's `--out json` the lab reads, as perflab's own k6 output reads them (packages/k6-output). */
export type PointKind =
  | "duration"
  | "reqs"
  | "failed"
  | "opErrors"
  | "dataSent"
  | "dataReceived"
  | "iterations"
  | "dropped"
  | "vus"
  | "testStart";

const KINDS: Record<string, PointKind> = {
  http_req_duration: "duration",
  http_reqs: "reqs",
  http_req_failed: "failed",
  mcp_op_errors: "opErrors",
  data_sent: "dataSent",
  data_received: "dataReceived",
  iterations: "iterations",
  dropped_iterations: "dropped",
  vus: "vus",
  perflab_test_start: "testStart",
};

/** The largest value a sample of each kind may carry: what one k6 sample can honestly hold. */
const MAX_VALUE: Record<PointKind, number> = {
  // The lab's histograms span 1 µs to 1 h, in ms here.
  duration: 3_600_000,
  reqs: 1_000_000,
  failed: 1,
  opErrors: 1_000_000,
  dataSent: 1e13,
  dataReceived: 1e13,
  iterations: 1_000_000,
  dropped: 1_000_000,
  vus: 1_000_000,
  testStart: 4_102_444_800_000,
};

const COUNTS = new Set<PointKind>(["reqs", "opErrors", "iterations", "dropped", "vus"]);

/** Epoch ms between 2000 and 2100: anything else is not a clock reading. */
const EPOCH_MS_MIN = 946_684_800_000;
const EPOCH_MS_MAX = 4_102_444_800_000;

export type K6Point = { kind: PointKind; ms: number; value: number; tags: Record<string, string> };

const METRIC_NAME = /"metric"\s*:\s*"([^"\\]*)"/;
const TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/**
 * One line of `k6 run --out json`: a Point of a metric the lab reads, null for anything else (Metric
 * declarations, other metrics: not parsed, which keeps a day of output affordable). A Point of a
 * read metric that is malformed is refused with its line number and the field.
 */
export function readK6JsonLine(n: number, raw: string, times: Map<string, number>): K6Point | null {
  // A cheap look at the name first; older k6 writes `metric` last, after the tags, so a tag named
  // "metric" may be found instead: the parsed line's own name decides.
  const found = METRIC_NAME.exec(raw)?.[1];
  if (found === undefined) checkIsK6Line(n, raw);
  const tagged = raw.includes('"metric"', raw.indexOf('"metric"') + 8);
  if (!tagged && (found === undefined || KINDS[found] === undefined)) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw invalidLine(n, "is not valid JSON", "is not valid JSON");
  }
  const line = json as {
    type?: unknown;
    metric?: unknown;
    data?: { time?: unknown; value?: unknown; tags?: unknown };
  };
  const name = typeof line.metric === "string" ? line.metric : "";
  const kind = Object.hasOwn(KINDS, name) ? KINDS[name] : undefined;
  if (line.type !== "Point" || kind === undefined) return null;
  const data = line.data;
  if (typeof data !== "object" || data === null) throw bad(n, "data", "must be an object");
  const ms = pointTime(n, data.time, times);
  const value = data.value;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_VALUE[kind]) {
    throw bad(n, "data.value", `must be a number from 0 to ${MAX_VALUE[kind]} for ${name}`);
  }
  if (COUNTS.has(kind) && !Number.isInteger(value)) {
    throw bad(n, "data.value", `must be a whole number for ${name}`);
  }
  return { kind, ms, value, tags: pointTags(n, data.tags) };
}

const bad = (n: number, field: string, reason: string) =>
  invalidLine(n, `${field}: ${reason}`, "is not a Point k6's --out json writes");

/** A line without its newline (the output's last) must be whole: JSON, whatever its metric. */
export function checkWholeLine(n: number, raw: string): void {
  try {
    JSON.parse(raw);
  } catch {
    throw invalidLine(n, "is cut short: it is not valid JSON and has no newline", "is cut short");
  }
}

/** A line that names no metric must still be one of k6's: JSON with a `type`. */
function checkIsK6Line(n: number, raw: string): void {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw invalidLine(n, "is not valid JSON", "is not valid JSON");
  }
  if (typeof json !== "object" || json === null || typeof (json as { type?: unknown }).type !== "string") {
    throw invalidLine(n, "type: must be Metric or Point", "is not a line k6's --out json writes");
  }
}

/** RFC 3339 with up to nanoseconds, as k6 writes it; the whole seconds are parsed once each. */
function pointTime(n: number, time: unknown, times: Map<string, number>): number {
  const match = typeof time === "string" ? TIME.exec(time) : null;
  if (!match) throw bad(n, "data.time", "must be an RFC 3339 time");
  const key = match[1]! + match[3]!;
  let base = times.get(key);
  if (base === undefined) {
    base = Date.parse(key);
    if (times.size > 100_000) times.clear();
    times.set(key, base);
  }
  const ms = base + (match[2] ? Number(`0.${match[2]}`) * 1000 : 0);
  if (!(ms >= EPOCH_MS_MIN && ms <= EPOCH_MS_MAX)) throw bad(n, "data.time", "must be between 2000 and 2100");
  return ms;
}

function pointTags(n: number, tags: unknown): Record<string, string> {
  if (tags === undefined || tags === null) return {};
  if (typeof tags !== "object" || Array.isArray(tags)) throw bad(n, "data.tags", "must be an object");
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value !== "string") throw bad(n, `data.tags.${key}`, "must be a string");
  }
  return tags as Record<string, string>;
}
