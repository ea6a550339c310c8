import { describe, expect, it } from "vitest";
import { createLatencyHistogram, encodeHistogram } from "../histogram.ts";
import { K6OutputDecoder, parseK6Output } from "./decoder.ts";
import { checkDuration } from "./duration.ts";
import { IngestError } from "./errors.ts";
import { linesOf } from "./lines.ts";

function hist(...micros: number[]): string {
  const h = createLatencyHistogram();
  for (const us of micros) h.recordValue(us);
  return encodeHistogram(h);
}

const start = JSON.stringify({ type: "start", t: 1_700_000_000_000, k6: "k6 v1.8.1" });
const end = JSON.stringify({ type: "end" });
const interval = (t: number, phase: string, micros: number[], vus = 2) =>
  JSON.stringify({
    type: "interval",
    t,
    groups: [
      {
        phase,
        method: "tools/call",
        tool: "echo",
        requests: micros.length,
        failed: 0,
        hist: hist(...micros),
      },
    ],
    iterations: micros.length,
    dataSent: 100,
    dataReceived: 200,
    vus,
  });

/**
 * How an upload of `text` is refused: its content refused (the API's 422 when it judged uploads
 * itself; now the reason the worker records on the run), with the field named.
 */
function refusal(text: string) {
  try {
    parseK6Output(text);
  } catch (error) {
    expect(error).toBeInstanceOf(IngestError);
    const refused = error as IngestError;
    return { status: 422, detail: refused.message, fields: [refused.field] };
  }
  throw new Error("the output was accepted");
}

describe("parseK6Output", () => {
  it("merges the measured histograms and reads the k6 version and VUs", () => {
    const text = [
      start,
      interval(1_700_000_000, "warmup", [50_000]),
      interval(1_700_000_001, "measure", [1_000, 2_000], 3),
      interval(1_700_000_002, "measure", [3_000, 4_000], 3),
      end,
      "",
    ].join("\n");
    const parsed = parseK6Output(text);
    expect(parsed.start.k6).toBe("k6 v1.8.1");
    expect(parsed.lines).toBe(5);
    expect(parsed.maxVus).toBe(3);
    const summary = parsed.aggregator.summary({ durationSec: 2 });
    expect(summary.requests).toBe(4);
    // The warm-up's 50 ms request is not in the measured percentiles.
    expect(summary.latency.maxMs).toBeLessThan(5);
  });

  it("takes every second's point as it reads, one per second, a late line merged into its second", () => {
    const t0 = 1_700_000_000;
    const seconds = Array.from({ length: 120 }, (_, i) => interval(t0 + i, "measure", [1_000, 2_000]));
    // A line for second 100 that k6 flushed late, after second 105's: its point was taken already.
    const late = interval(t0 + 100, "measure", [9_000]);
    const text = [start, ...seconds.slice(0, 106), late, ...seconds.slice(106), end].join("\n");
    const parsed = parseK6Output(text);
    expect(parsed.points.map((p) => p.t)).toEqual(Array.from({ length: 120 }, (_, i) => t0 + i));
    expect(parsed.points.find((p) => p.t === t0 + 100)?.requests).toBe(3);
    expect(parsed.points.find((p) => p.t === t0 + 99)?.requests).toBe(2);
    expect(parsed.points.reduce((n, p) => n + p.requests, 0)).toBe(
      parsed.aggregator.summary({ durationSec: 120 }).requests,
    );
  });

  it("sums the calls dropped in the measured window's seconds only, and has none for an older output", () => {
    const dropped = (line: string, n: number) => line.replace(/}$/, `,"dropped":${n}}`);
    const text = [
      start,
      dropped(interval(1_700_000_000, "warmup", [50_000]), 40),
      dropped(interval(1_700_000_001, "measure", [1_000]), 3),
      dropped(interval(1_700_000_002, "measure", [1_000]), 2),
      end,
    ].join("\n");
    expect(parseK6Output(text).aggregator.summary({ durationSec: 2 }).droppedCalls).toBe(5);
    const older = [start, interval(1_700_000_001, "measure", [1_000]), end].join("\n");
    expect(parseK6Output(older).aggregator.summary({ durationSec: 1 }).droppedCalls).toBeNull();
  });

  it("counts the warm-up from the run line (after VU initialisation), or from the start line without one", () => {
    const dropped = (line: string, n: number) => line.replace(/}$/, `,"dropped":${n}}`);
    // k6 took 1.7 s to initialise its VUs; warm-up 2 s, then 3 s measured: [1.7 + 2, 1.7 + 5) s.
    const run = JSON.stringify({ type: "run", t: 1_700_000_001_700 });
    const seconds = [
      dropped(interval(1_700_000_002, "warmup", [50_000]), 7),
      dropped(interval(1_700_000_003, "warmup", [50_000]), 11),
      dropped(interval(1_700_000_004, "measure", [1_000]), 1),
      dropped(interval(1_700_000_006, "measure", [1_000]), 2),
      dropped(interval(1_700_000_007, "measure", [1_000]), 100),
    ];
    const options = { warmupSeconds: 2, measuredSeconds: 3 };
    const parsed = parseK6Output([start, run, ...seconds, end].join("\n"), options);
    expect(parsed.testStartMs).toBe(1_700_000_001_700);
    // The window's seconds are 3 (part) to 6 (part): a warm-up second of k6's clock is in it.
    expect(parsed.aggregator.summary({ durationSec: 3 }).droppedCalls).toBe(11 + 1 + 2);
    const older = parseK6Output([start, ...seconds, end].join("\n"), options);
    expect(older.testStartMs).toBe(1_700_000_000_000);
    expect(older.aggregator.summary({ durationSec: 3 }).droppedCalls).toBe(7 + 11 + 1);

    expect(refusal([start, run, run, end].join("\n")).fields).toEqual(["line 3"]);
    expect(refusal([start, seconds[0]!, run, end].join("\n")).fields).toEqual(["line 3"]);
    expect(refusal([run, start, end].join("\n")).fields).toEqual(["line 1"]);
    const before = JSON.stringify({ type: "run", t: 1_699_999_999_000 });
    expect(refusal([start, before, end].join("\n")).fields).toEqual(["line 2"]);
  });

  it("counts the scenario's own operations: MCP's tool calls by default, GETs when told", () => {
    const get = interval(1_700_000_001, "measure", [1_000, 2_000])
      .replace('"method":"tools/call"', '"method":"GET"')
      .replace('"tool":"echo"', '"tool":"/rest/time"');
    const text = [start, get, end].join("\n");
    expect(parseK6Output(text).aggregator.summary({ durationSec: 1 })).toMatchObject({ requests: 2, ops: 0 });
    expect(
      parseK6Output(text, { operationMethod: "GET" }).aggregator.summary({ durationSec: 1 }),
    ).toMatchObject({ requests: 2, ops: 2, requestsPerOp: 1 });
  });

  it("names a line that is not JSON or not perflab's output, by its 1-based number", () => {
    expect(refusal([start, "{oops", end].join("\n"))).toMatchObject({ status: 422, fields: ["line 2"] });
    expect(refusal([start, "", '{"type":"interval"}', end].join("\n"))).toMatchObject({
      status: 422,
      fields: ["line 3"],
    });
    const badHist = interval(1, "measure", [1_000]).replace(/"hist":"[^"]+"/, '"hist":"not-a-histogram"');
    expect(refusal([start, badHist, end].join("\n"))).toMatchObject({ status: 422, fields: ["line 2"] });
  });

  it("wants the start line first, the end line last, and each once", () => {
    expect(refusal("")).toMatchObject({ status: 422, fields: ["(body)"] });
    expect(refusal([interval(1, "measure", [1_000]), end].join("\n")).fields).toEqual(["line 1"]);
    expect(refusal([start, interval(1_700_000_001, "measure", [1_000])].join("\n"))).toMatchObject({
      fields: ["(body)"],
      detail: expect.stringContaining("no end line"),
    });
    expect(refusal([start, start, end].join("\n")).fields).toEqual(["line 2"]);
    expect(refusal([start, end, interval(1_700_000_001, "measure", [1_000])].join("\n")).fields).toEqual([
      "line 3",
    ]);
  });
});

describe("contradictory groups", () => {
  const group = (over: Record<string, unknown>) =>
    JSON.stringify({
      type: "interval",
      t: 1_700_000_001,
      groups: [
        {
          phase: "measure",
          method: "tools/call",
          tool: "echo",
          requests: 2,
          failed: 0,
          hist: hist(1_000, 2_000),
          ...over,
        },
      ],
      iterations: 2,
      dataSent: 100,
      dataReceived: 200,
      vus: 2,
    });
  const field = 'group {"phase":"measure","method":"tools/call","tool":"echo"}';

  it("refuses more failed requests or failed operations than requests, over the whole output, naming the group", () => {
    expect(refusal([start, group({ failed: 3 }), end].join("\n"))).toMatchObject({
      status: 422,
      fields: [field],
    });
    expect(refusal([start, group({ opErrors: 3 }), end].join("\n"))).toMatchObject({
      status: 422,
      fields: [field],
    });
  });

  it("takes an operation's error stamped in the second after its request", () => {
    // Two requests in one second, one of them failed as an operation in the next: 1 of 2 overall.
    const next = JSON.stringify({
      ...JSON.parse(group({ requests: 0, opErrors: 1, hist: hist() })),
      t: 1_700_000_002,
    });
    const parsed = parseK6Output([start, group({}), next, end].join("\n"));
    expect(parsed.aggregator.summary({ durationSec: 2 })).toMatchObject({ requests: 2, errors: 1 });
  });

  it("refuses histograms that hold another number of latencies than the requests", () => {
    const refused = refusal([start, group({ requests: 3 }), end].join("\n"));
    expect(refused).toMatchObject({ status: 422, fields: [field] });
    expect(refused.detail).toContain("3 requests but their histograms hold 2 latencies");
    // Counted over the whole output: a second's latencies that came in a late line of their own agree.
    const first = group({ requests: 2, hist: hist(1_000) });
    const late = group({ requests: 0, hist: hist(2_000) });
    expect(
      parseK6Output([start, first, late, end].join("\n")).aggregator.summary({ durationSec: 1 }).requests,
    ).toBe(2);
  });
});

describe("checkDuration", () => {
  // k6 started mid-second; 2 VUs measured for 20 s (no warm-up), a line every second.
  const t0 = 1_700_000_000;
  const begin = JSON.stringify({ type: "start", t: t0 * 1000 + 600, k6: "k6 v1.8.1" });
  const seconds = (from: number, to: number, line: (t: number) => string) =>
    Array.from({ length: to - from + 1 }, (_, i) => line(from + i));
  const busy = (t: number) => interval(t, "measure", Array(50).fill(2_000), 2);
  const quiet = (t: number) =>
    JSON.stringify({ ...JSON.parse(interval(t, "measure", [])), groups: [], iterations: 0 });
  const check = (lines: string[], durationSec: number, more: { vus?: number; rate?: number } = {}) => {
    const output = parseK6Output([begin, ...lines, end].join("\n"));
    try {
      checkDuration(output, { durationSec, warmupSec: 0, ...more });
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(IngestError);
      return { fields: [(error as IngestError).field], detail: (error as IngestError).message };
    }
  };
  const genuine = seconds(t0, t0 + 20, busy);

  it("takes a genuine run: partial first and last seconds, a slow tail, a stall at the end", () => {
    expect(check(genuine, 20)).toBeNull();
    // The two VUs' last calls took 25 s to answer: they end long after the window, one each.
    const slowTail = [
      ...genuine,
      ...seconds(t0 + 21, t0 + 44, quiet),
      interval(t0 + 45, "measure", [25e6, 25e6], 2),
    ];
    expect(check(slowTail, 20)).toBeNull();
    // The server stopped answering 5 s before the end: those seconds have lines without requests.
    expect(check([...seconds(t0, t0 + 14, busy), ...seconds(t0 + 15, t0 + 20, quiet)], 20)).toBeNull();
    // It stalled from the start of the window: the first measured call ended late.
    expect(check([...seconds(t0, t0 + 9, quiet), ...seconds(t0 + 10, t0 + 20, busy)], 20)).toBeNull();
  });

  it("refuses a durationSec shorter than the measured window: the summary would divide by too little", () => {
    const refused = check(genuine, 1);
    expect(refused?.fields).toEqual(["durationSec"]);
    expect(refused?.detail).toMatch(/span 21 s, and 900 iterations ended more than 3 s after/);
    // The VUs given or an open model's rate widen what may have been in flight at the end.
    expect(check(genuine, 1, { rate: 500 })).toBeNull();
  });

  it("refuses a durationSec longer than the output covers: the summary would divide by too much", () => {
    expect(check(genuine, 22)).toBeNull();
    const refused = check(genuine, 60);
    expect(refused?.fields).toEqual(["durationSec"]);
    expect(refused?.detail).toContain("lines end 20 s after its start line");
  });
});

describe("K6OutputDecoder fed as the bytes arrive", () => {
  const text = [
    start,
    interval(1_700_000_000, "warmup", [50_000]),
    interval(1_700_000_001, "measure", [1_000, 2_000], 3),
    interval(1_700_000_002, "measure", [3_000, 4_000], 3),
    end,
    "",
  ].join("\n");
  /** The text's bytes in pieces of `size`, cutting lines (and multi-byte characters) anywhere. */
  async function* pieces(body: string, size: number) {
    const bytes = new TextEncoder().encode(body);
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  }
  const decodeStream = async (body: string, size: number) => {
    const decoder = new K6OutputDecoder();
    for await (const line of linesOf(pieces(body, size))) decoder.feed(line);
    return decoder.end();
  };

  it("gives what the whole text gives, however the bytes are cut", async () => {
    const whole = parseK6Output(text);
    for (const size of [1, 7, 64, 1 << 20]) {
      const streamed = await decodeStream(text, size);
      expect(streamed.points).toEqual(whole.points);
      expect(streamed.lines).toBe(whole.lines);
      expect(streamed.aggregator.summary({ durationSec: 2 })).toEqual(
        whole.aggregator.summary({ durationSec: 2 }),
      );
    }
  });

  it("names a refused line by its number in the whole body", async () => {
    const bad = [start, "", "{oops", end].join("\n");
    await expect(decodeStream(bad, 3)).rejects.toMatchObject({ field: "line 3" });
  });

  it("reads a tag of multi-byte characters cut between pieces", async () => {
    const named = text.replaceAll('"tool":"echo"', '"tool":"écho→ツール"');
    const streamed = await decodeStream(named, 5);
    expect(streamed.aggregator.summary({ durationSec: 2 }).operations[0]?.tool).toBe("écho→ツール");
  });
});
