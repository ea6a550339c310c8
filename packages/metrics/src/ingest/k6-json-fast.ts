import {
  type K6Point,
  nameOf,
  pointTags,
  pointTime,
  pointValue,
  type TimeCache,
  timeCache,
} from "./k6-json-point.ts";

/** How k6 writes a Point (metric first, then type and data, no spaces), piece by piece. */
const OPEN = '{"metric":"';
const AFTER_NAME = '","type":"Point","data":{"time":"';
const AFTER_TIME = '","value":';
const BEFORE_TAGS = ',"tags":';
const CLOSE = 0x7d; // }
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** Distinct tag sets remembered: a run's are few (one per phase, method, tool and status), a URL tag may make more. */
const MAX_TAG_SETS = 10_000;

/** Tag sets compared with a line's text before any lookup: k6 writes a request's samples one after another. */
const RECENT_TAG_SETS = 4;

type TagSet = { tail: string; tags: Record<string, string> };

/** What the fast reading keeps between lines: parsed times' seconds and parsed tag sets. */
export type FastState = {
  times: TimeCache;
  tags: Map<string, TagSet>;
  recent: TagSet[];
  next: number;
};

export const fastState = (): FastState => ({ times: timeCache(), tags: new Map(), recent: [], next: 0 });

/**
 * The line `text[from, to)` as readK6JsonLine would read it, without parsing the whole line: the
 * Point (null for a metric the lab skips), or undefined when the line is not exactly as k6 writes
 * it or is refused, so that readK6JsonLine reads it and names what is wrong. The data's tags are
 * parsed once per distinct text; a Point's time, value and tags are checked as readK6JsonLine checks
 * them, so both give the same Point.
 */
export function readK6JsonPointAt(
  text: string,
  from: number,
  to: number,
  state: FastState,
): K6Point | null | undefined {
  if (!text.startsWith(OPEN, from)) return undefined;
  const nameAt = from + OPEN.length;
  const nameEnd = text.indexOf('"', nameAt);
  if (nameEnd === -1 || nameEnd >= to) return undefined;
  const name = text.slice(nameAt, nameEnd);
  if (name.includes("\\")) return undefined;
  const kind = nameOf(name);
  if (kind === "unread") {
    // A second "metric" (a tag of that name) makes readK6JsonLine parse the line: so it does here.
    const again = text.indexOf('"metric"', from + 9);
    return again !== -1 && again < to ? undefined : null;
  }
  if (kind === "inherited" || !text.startsWith(AFTER_NAME, nameEnd)) return undefined;
  const timeAt = nameEnd + AFTER_NAME.length;
  const timeEnd = text.indexOf('"', timeAt);
  if (timeEnd === -1 || timeEnd >= to || !text.startsWith(AFTER_TIME, timeEnd)) return undefined;
  const valueAt = timeEnd + AFTER_TIME.length;
  const valueEnd = text.indexOf(BEFORE_TAGS, valueAt);
  if (valueEnd === -1 || valueEnd >= to) return undefined;
  if (text.charCodeAt(to - 1) !== CLOSE || text.charCodeAt(to - 2) !== CLOSE) return undefined;
  const tags = tagsAt(text, valueEnd + BEFORE_TAGS.length, to - 2, state);
  const valueText = text.slice(valueAt, valueEnd);
  if (tags === undefined || !JSON_NUMBER.test(valueText)) return undefined;
  try {
    const ms = pointTime(0, text.slice(timeAt, timeEnd), state.times);
    return { kind, ms, value: pointValue(0, kind, name, Number(valueText)), tags };
  } catch {
    return undefined;
  }
}

/** The tags of the text's `[from, to)`: one of the last few sets when the text is theirs, else looked up. */
function tagsAt(
  text: string,
  from: number,
  to: number,
  state: FastState,
): Record<string, string> | undefined {
  // A copy compared whole is faster than startsWith at an offset, and than hashing it for the map.
  const tail = text.slice(from, to);
  for (const set of state.recent) if (set.tail === tail) return set.tags;
  const set = tagsOf(tail, state.tags);
  if (!set) return undefined;
  state.recent[state.next] = set;
  state.next = (state.next + 1) % RECENT_TAG_SETS;
  return set.tags;
}

/**
 * The tags of `"tags":<tail>` ending the data object (k6 may add `"metadata"` after them), parsed
 * once per distinct tail; undefined when the tail is not JSON, holds another key of the data, or
 * has tags the lab refuses.
 */
function tagsOf(tail: string, known: Map<string, TagSet>): TagSet | undefined {
  const cached = known.get(tail);
  if (cached) return cached;
  let data: Record<string, unknown>;
  let tags: Record<string, string>;
  try {
    data = JSON.parse(`{"tags":${tail}}`) as Record<string, unknown>;
    tags = pointTags(0, data.tags);
  } catch {
    return undefined;
  }
  for (const key of Object.keys(data)) if (key !== "tags" && key !== "metadata") return undefined;
  if (known.size >= MAX_TAG_SETS) known.clear();
  const set = { tail, tags };
  known.set(tail, set);
  return set;
}
