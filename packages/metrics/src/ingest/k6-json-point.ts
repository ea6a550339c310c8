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

/**
 * One line of `k6 run --out json`: a Point of a metric the lab reads, null for anything else (Metric
 * declarations, other metrics: not parsed, which keeps a day of output affordable). A Point of a
 * read metric that is malformed is refused with its line number and the field.
 */
export function readK6JsonLine(n: number, raw: string, times: TimeCache): K6Point | null {
  // A cheap look at the name first; older k6 writes `metric` last, after the tags, so a tag named
  // "metric" may be found instead: the parsed line's own name decides.
  const found = METRIC_NAME.exec(raw)?.[1];
  if (found === undefined) checkIsK6Line(n, raw);
  const tagged = raw.includes('"metric"', raw.indexOf('"metric"') + 8);
  if (!tagged && (found === undefined || isUnread(found))) return null;
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
  const kind = kindOf(name);
  if (line.type !== "Point" || kind === undefined) return null;
  const data = line.data;
  if (typeof data !== "object" || data === null) throw bad(n, "data", "must be an object");
  const ms = pointTime(n, data.time, times);
  const value = pointValue(n, kind, name, data.value);
  return { kind, ms, value, tags: pointTags(n, data.tags) };
}

/**
 * KINDS as a Map, looked up once per line without interning the name, with the names KINDS has
 * from Object.prototype ("toString", "__proto__", …) as "inherited".
 */
const NAMES = new Map<string, PointKind | "inherited">([
  ...Object.getOwnPropertyNames(Object.prototype).map((name) => [name, "inherited"] as const),
  ...Object.entries(KINDS),
]);

/**
 * What a metric's name is to the lab: its kind, "unread" for a metric skipped without parsing its
 * line (`KINDS[name] === undefined`), or "inherited" for a name parsed and refused when not JSON.
 */
export const nameOf = (name: string): PointKind | "unread" | "inherited" => NAMES.get(name) ?? "unread";

export const isUnread = (name: string) => nameOf(name) === "unread";

/** The metric a name read from a line is, if the lab reads it (an own key only: not "toString"). */
export function kindOf(name: string): PointKind | undefined {
  const found = nameOf(name);
  return found === "unread" || found === "inherited" ? undefined : found;
}

/** A Point's value, refused unless one sample of its metric can hold it. */
export function pointValue(n: number, kind: PointKind, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_VALUE[kind]) {
    throw bad(n, "data.value", `must be a number from 0 to ${MAX_VALUE[kind]} for ${name}`);
  }
  if (COUNTS.has(kind) && !Number.isInteger(value)) {
    throw bad(n, "data.value", `must be a whole number for ${name}`);
  }
  return value;
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

/** Whole seconds of times already parsed: the last one (k6 writes thousands of samples a second), and others by text. */
export type TimeCache = { prefix: string; zone: string; base: number; seconds: Map<string, number> };

export const timeCache = (): TimeCache => ({ prefix: "", zone: "", base: 0, seconds: new Map() });

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * RFC 3339 with up to nanoseconds, as k6 writes it (`2026-01-01T12:00:00.123456789Z`, or a zone
 * offset `+02:00`), read without a regular expression; the whole seconds are parsed once each. A
 * fraction's digits over their power of ten is the same double as its decimal text parsed.
 */
export function pointTime(n: number, time: unknown, cache: TimeCache): number {
  // The last second's text was checked when it was parsed: most times are in it.
  const seconds = typeof time === "string" && (time.slice(0, 19) === cache.prefix || wholeSeconds(time));
  const zoneAt = seconds ? zoneStart(time as string) : -1;
  if (zoneAt === -1) throw bad(n, "data.time", "must be an RFC 3339 time");
  const text = time as string;
  let fraction = 0;
  for (let at = 20; at < zoneAt; at++) fraction = fraction * 10 + text.charCodeAt(at) - 0x30;
  const digits = zoneAt - 20;
  const ms = secondOf(text, zoneAt, cache) + (digits > 0 ? (fraction / POW10[digits]!) * 1000 : 0);
  if (!(ms >= EPOCH_MS_MIN && ms <= EPOCH_MS_MAX)) throw bad(n, "data.time", "must be between 2000 and 2100");
  return ms;
}

/** `dddd-dd-ddTdd:dd:dd` at the start. */
function wholeSeconds(time: string): boolean {
  for (let at = 0; at < 19; at++) {
    const c = time.charCodeAt(at);
    const sep = at === 4 || at === 7 ? 0x2d : at === 10 ? 0x54 : at === 13 || at === 16 ? 0x3a : 0;
    if (sep ? c !== sep : !isDigit(c)) return false;
  }
  return true;
}

/** Where the zone (`Z` or `±hh:mm`, ending the text) begins after the seconds and 1-9 fraction digits; -1 if it does not. */
function zoneStart(time: string): number {
  let at = 19;
  if (time.charCodeAt(at) === 0x2e) {
    while (isDigit(time.charCodeAt(at + 1))) at++;
    if (at === 19 || at > 28) return -1;
    at++;
  }
  const c = time.charCodeAt(at);
  if (c === 0x5a) return time.length === at + 1 ? at : -1;
  if (c !== 0x2b && c !== 0x2d) return -1;
  const offset = isDigit(time.charCodeAt(at + 1)) && isDigit(time.charCodeAt(at + 2));
  const minutes =
    time.charCodeAt(at + 3) === 0x3a && isDigit(time.charCodeAt(at + 4)) && isDigit(time.charCodeAt(at + 5));
  return offset && minutes && time.length === at + 6 ? at : -1;
}

/** The time's whole second (Unix ms), parsed once per distinct second and zone. */
function secondOf(time: string, zoneAt: number, cache: TimeCache): number {
  const prefix = time.slice(0, 19);
  const zone = time.slice(zoneAt);
  if (prefix === cache.prefix && zone === cache.zone) return cache.base;
  const key = prefix + zone;
  let base = cache.seconds.get(key);
  if (base === undefined) {
    base = Date.parse(key);
    if (cache.seconds.size > 100_000) cache.seconds.clear();
    cache.seconds.set(key, base);
  }
  Object.assign(cache, { prefix, zone, base });
  return base;
}

export function pointTags(n: number, tags: unknown): Record<string, string> {
  if (tags === undefined || tags === null) return {};
  if (typeof tags !== "object" || Array.isArray(tags)) throw bad(n, "data.tags", "must be an object");
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value !== "string") throw bad(n, `data.tags.${key}`, "must be a string");
  }
  return tags as Record<string, string>;
}
