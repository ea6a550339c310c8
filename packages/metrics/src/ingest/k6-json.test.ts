import { describe, expect, it } from "vitest";
import { createLatencyHistogram, decodeHistogram, encodeHistogram, latencyStats } from "../histogram.ts";
import { IngestError } from "./errors.ts";
import { K6_JSON_VERSION, K6JsonDecoder } from "./k6-json.ts";
import { point, request } from "./k6-json-fixture.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function decode(lines: string[], warmupSeconds?: number) {
  const decoder = new K6JsonDecoder({
    latency: "auto",
    ...(warmupSeconds === undefined ? {} : { warmupSeconds }),
  });
  for (const line of lines) decoder.feed(line);
  return decoder.end();
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof IngestError) return { field: error.field, reason: error.reason };
    throw error;
  }
  throw new Error("was not refused");
};

describe("k6's --out json", () => {
  const tags = { phase: "measure", method: "tools/call", tool: "echo" };
  const durations = Array.from({ length: 300 }, (_, i) => 0.5 + ((i * 37) % 100) / 7);
  const lines = [
    JSON.stringify({ type: "Metric", data: { name: "http_reqs", type: "counter" }, metric: "http_reqs" }),
    point("vus", T0, 4),
    ...durations.flatMap((d, i) => request(T0 + i * 10, d, tags, i % 50 === 0)),
    point("iterations", T0 + 2500, 300),
  ];

  it("takes percentiles from an HDR histogram of the raw samples, equal to one built directly", () => {
    const output = decode(lines);
    const summary = output.aggregator.summary({ durationSec: 3 });
    const direct = createLatencyHistogram();
    for (const d of durations) direct.recordValue(Math.max(1, Math.round(d * 1000)));
    expect(summary.requests).toBe(300);
    expect(summary.ops).toBe(300);
    expect(summary.errors).toBe(6);
    // As the lab stores every histogram (encoded), so the max is its bucket's, as for its own runs.
    expect(summary.latency).toEqual(latencyStats(decodeHistogram(encodeHistogram(direct))));
    expect(summary.operations).toMatchObject([{ method: "tools/call", tool: "echo", count: 300 }]);
    expect(output.start.k6).toBe(K6_JSON_VERSION);
  });

  it("counts requests that hit the client's timeout (error_code 1050) apart from the other errors", () => {
    const timedOut = { ...tags, error_code: "1050" };
    const refused = { ...tags, error_code: "1211" };
    const output = decode([
      ...request(T0, 200, timedOut, true),
      ...request(T0 + 10, 201, timedOut, true),
      ...request(T0 + 20, 1, refused, true),
      ...request(T0 + 30, 2, tags),
    ]);
    expect(output.aggregator.summary({ durationSec: 1 })).toMatchObject({
      requests: 4,
      timeouts: 2,
      errors: 1,
    });
  });

  it("gives a per-second series of requests, errors and latency", () => {
    const output = decode(lines);
    expect(output.points.map((p) => p.requests)).toEqual([100, 100, 100]);
    expect(output.points.map((p) => p.errors)).toEqual([2, 2, 2]);
    expect(output.points.every((p) => p.p99 !== null)).toBe(true);
  });

  it("holds the same figures whatever order k6 flushed its samples in", () => {
    const shuffled = [...lines].reverse();
    const a = decode(lines).aggregator.summary({ durationSec: 3 });
    const b = decode(shuffled).aggregator.summary({ durationSec: 3 });
    expect(b.requests).toBe(a.requests);
    expect(b.latency).toEqual(a.latency);
  });

  it("leaves out the query's warm-up from samples without a phase tag, by their second, and labels requests by name", () => {
    const untagged = durations.flatMap((d, i) => request(T0 + i * 10, d, { name: "http://127.0.0.1/x" }));
    const output = decode([point("vus", T0, 1), ...untagged], 1);
    const summary = output.aggregator.summary({ durationSec: 2 });
    expect(summary.requests).toBe(200);
    expect(summary.operations).toMatchObject([{ method: "", tool: "http://127.0.0.1/x", count: 200 }]);
    expect(summary.latency.count).toBe(200);
  });

  it("reads the line order of older k6 (metric last, null tags, a zone offset)", () => {
    const old = (metric: string, time: string, value: number, tags: Record<string, string> | null) =>
      JSON.stringify({ type: "Point", data: { time, value, tags }, metric });
    const output = decode([
      old("vus", "2026-01-01T14:00:00.000000001+02:00", 1, null),
      old("http_reqs", "2026-01-01T14:00:00.5+02:00", 1, { metric: "http_reqs", name: "x" }),
      old("http_req_duration", "2026-01-01T14:00:00.5+02:00", 12.5, { metric: "http_reqs", name: "x" }),
    ]);
    expect(output.start.t).toBe(T0);
    expect(output.aggregator.summary({ durationSec: 1 }).latency).toMatchObject({ count: 1, p50: 12.503 });
  });

  it("refuses a duration past an hour, naming the line and field", () => {
    const hostile = [point("vus", T0, 1), point("http_req_duration", T0, 1e300, tags)];
    expect(refusal(() => decode(hostile))).toEqual({
      field: "line 2",
      reason: "data.value: must be a number from 0 to 3600000 for http_req_duration",
    });
  });

  it("refuses a Point without a time, and a line that is not JSON", () => {
    const noTime = JSON.stringify({ metric: "http_reqs", type: "Point", data: { value: 1 } });
    expect(refusal(() => decode([noTime]))).toMatchObject({ field: "line 1", reason: /data.time/ });
    expect(refusal(() => decode([point("vus", T0, 1), "{not json"]))).toEqual({
      field: "line 2",
      reason: "is not valid JSON",
    });
  });

  it("refuses an output whose request counts and durations disagree, naming the group", () => {
    const lost = [point("vus", T0, 1), point("http_reqs", T0, 1, tags), point("http_reqs", T0, 1, tags)];
    lost.push(point("http_req_duration", T0, 3, tags));
    expect(refusal(() => decode(lost)).field).toBe(
      'group {"phase":"measure","method":"tools/call","tool":"echo"}',
    );
  });

  it("refuses an output cut short mid-line, even in a line of a metric it does not read", () => {
    const whole = [...lines.slice(0, 40), ""].join("\n");
    const cut = `${whole}${point("http_req_waiting", T0, 1, tags).slice(0, 50)}`;
    const decoder = new K6JsonDecoder({});
    for (const line of cut.split("\n")) decoder.feed(line);
    expect(refusal(() => decoder.end())).toEqual({
      field: "line 41",
      reason: "is cut short: it is not valid JSON and has no newline",
    });
  });

  it("refuses an output without a request sample", () => {
    const metricsOnly = [JSON.stringify({ type: "Metric", data: { name: "vus" }, metric: "vus" })];
    expect(refusal(() => decode(metricsOnly)).field).toBe("(body)");
  });
});
