import { describe, expect, it } from "vitest";
import { IngestError } from "./errors.ts";
import { K6JsonDecoder } from "./k6-json.ts";
import { fastState, readK6JsonPointAt } from "./k6-json-fast.ts";
import { point, request } from "./k6-json-fixture.ts";
import { pointTime, readK6JsonLine, timeCache } from "./k6-json-point.ts";
import { endsWithNewline, lineBlocksOf } from "./lines.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const measure = { phase: "measure", method: "tools/call", tool: "echo" };

/** Three seconds of a run as k6 writes it, with the lines k6 or a user's script may add. */
const body = [
  JSON.stringify({ type: "Metric", data: { name: "http_reqs", type: "counter" }, metric: "http_reqs" }),
  point("vus", T0, 4),
  point("perflab_test_start", T0, T0),
  ...Array.from({ length: 240 }, (_, i) => {
    const ms = T0 + i * 12;
    const tags = i % 3 === 0 ? { ...measure, tool: "sleep", error_code: "1050" } : measure;
    return [
      ...request(ms, 0.2 + ((i * 37) % 90) / 3, i < 40 ? { ...measure, phase: "warmup" } : tags, i % 7 === 0),
      point("iterations", ms, 1, { phase: "measure" }),
      point("data_sent", ms, 350.5, {}),
      point("iteration_duration", ms, 3, { phase: "measure" }),
    ];
  }).flat(),
  // A tag named "metric", k6's metadata, an untagged request, older k6's order, spaces, CRLF.
  point("http_reqs", T0 + 2100, 1, { name: "http://x/a", metric: "http_reqs" }),
  JSON.stringify({
    metric: "http_req_duration",
    type: "Point",
    data: { time: "2026-01-01T12:00:02.1Z", value: 5, tags: { name: "http://x/a" }, metadata: { vu: "3" } },
  }),
  JSON.stringify({
    type: "Point",
    data: { time: "2026-01-01T12:00:02.2Z", value: 2, tags: null },
    metric: "vus",
  }),
  ` ${point("mcp_op_errors", T0 + 2300, 1, measure)}`,
  `${point("dropped_iterations", T0 + 2400, 2, {})}\r`,
  point("data_received", T0 + 2900, 1e3, {}),
  "",
].join("\n");

const slowly = (text: string) => {
  const decoder = new K6JsonDecoder({ latency: "auto", warmupSeconds: 1 });
  for (const line of text.split("\n")) decoder.feed(line);
  return decoder.end();
};

async function inBlocks(text: string, size: number) {
  const decoder = new K6JsonDecoder({ latency: "auto", warmupSeconds: 1 });
  const bytes = Buffer.from(text);
  async function* pieces() {
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  }
  for await (const block of lineBlocksOf(pieces())) {
    const text = new TextDecoder().decode(block);
    if (endsWithNewline(block)) decoder.feedLines(text);
    else decoder.feed(text);
  }
  return decoder.end();
}

/** What a decoded output holds, summary included. */
const figures = (output: ReturnType<typeof slowly>) => {
  const { aggregator, ...rest } = output;
  return { ...rest, summary: aggregator.summary({ durationSec: 2 }) };
};

async function refusalOf(run: () => unknown) {
  try {
    await run();
  } catch (error) {
    if (error instanceof IngestError) return { field: error.field, reason: error.reason };
    throw error;
  }
  return "not refused";
}

describe("k6's --out json read a block at a time", () => {
  it("reads each line k6 writes to the same Point as a whole-line parse", () => {
    const state = fastState();
    const lines = body.split("\n");
    let read = 0;
    for (const line of lines.slice(1, -1)) {
      const fast = readK6JsonPointAt(line, 0, line.length, state);
      if (fast === undefined) continue;
      read++;
      expect(fast, line).toEqual(readK6JsonLine(1, line, timeCache()));
    }
    // All but the Metric line, older k6's order and the lines with spaces around them.
    expect(read).toBe(lines.length - 5);
  });

  it("gives the figures line by line gives, however the bytes are cut", async () => {
    const slow = figures(slowly(body));
    expect(slow.summary.requests).toBeGreaterThan(0);
    for (const size of [1, 61, 4096, 1 << 20]) expect(figures(await inBlocks(body, size))).toEqual(slow);
  });

  it("refuses what line by line refuses, naming the same line and reason", async () => {
    const base = body.split("\n").slice(0, 30);
    const bad = [
      point("http_req_duration", T0, 1e300, measure),
      point("http_reqs", T0, 1.5, measure),
      point("http_reqs", T0, -1, measure),
      point("http_reqs", T0, 1, { ...measure, tool: "a\u0000b" }),
      point("http_reqs", T0, 1, measure).replace('"value":1', '"value":"1"'),
      point("http_reqs", T0, 1, measure).replace('"value":1', '"value":01'),
      point("http_reqs", T0, 1, measure).replace("2026", "1970"),
      point("http_reqs", T0, 1, measure).replace("2026", "\\u0032026"),
      point("http_reqs", T0, 1, measure).replace("T12", "t12"),
      point("http_reqs", T0, 1, measure).replace('"echo"', "7"),
      point("http_reqs", T0, 1, measure).replace('"echo"}', '"echo"},"value":1e9'),
      point("http_reqs", T0, 1, measure).replace('"echo"}', '"echo"'),
      point("toString", T0, 1, measure).slice(0, -3),
      point("http_req_waiting", T0, 1, measure).slice(0, -3),
      `${point("http_reqs", T0, 1, measure).slice(0, -1)},"metric":"x"}`,
    ];
    const refused: unknown[] = [];
    for (const line of bad) {
      const text = [...base, line, ...base.slice(3), ""].join("\n");
      const slow = await refusalOf(() => slowly(text));
      expect(await refusalOf(() => inBlocks(text, 4096)), line).toEqual(slow);
      refused.push(slow);
    }
    expect(refused.filter((r) => (r as { field?: string }).field === "line 31")).toHaveLength(12);
  });

  it("reads a time as the regular expression it replaced did, whatever the last second read", () => {
    const TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;
    const expected = (time: string) => {
      const m = TIME.exec(time);
      const ms = m ? Date.parse(m[1]! + m[3]!) + (m[2] ? Number(`0.${m[2]}`) * 1000 : 0) : Number.NaN;
      return ms >= Date.UTC(2000, 0, 1) && ms <= Date.UTC(2100, 0, 1) ? ms : "refused";
    };
    const cache = timeCache();
    const read = (time: string) => {
      try {
        return pointTime(1, time, cache);
      } catch {
        return "refused";
      }
    };
    const times = [
      "2026-01-01T12:00:00Z",
      "2026-01-01T12:00:00.5Z",
      "2026-01-01T12:00:00.123456789Z",
      "2026-01-01T12:00:00.000000001+02:00",
      "2026-01-01T12:00:00-05:30",
      "2026-01-01T12:00:00.1234567891Z",
      "2026-01-01T12:00:00.Z",
      "2026-01-01T12:00:00",
      "2026-01-01T12:00:00z",
      "2026-01-01 12:00:00Z",
      "2026-01-01T12:00:00.12a4Z",
      "2026-01-01T12:00:00+0200",
      "2026-01-01T12:00:00Z ",
      "２０２６-01-01T12:00:00Z",
      "2026-13-01T00:00:00Z",
      "1999-12-31T23:59:59.999Z",
      "",
    ];
    // Each after every other, so the last second remembered is each in turn.
    for (const before of times) {
      for (const time of times) {
        read(before);
        expect(read(time), `${time} after ${before}`).toBe(expected(time));
      }
    }
  });
});
