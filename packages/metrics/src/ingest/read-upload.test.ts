import { gzipSync } from "node:zlib";
import { ZUploadQuery } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { detectFormat } from "./detect.ts";
import { IngestError } from "./errors.ts";
import { point, request } from "./k6-json-fixture.ts";
import { decodeUploadBody } from "./read-upload.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const query = (extra: Record<string, string> = {}) =>
  ZUploadQuery.parse({ server: "go", durationSec: "2", ...extra });

/** A body as the stored chunks hand it over, cut in small pieces so lines straddle them. */
async function* chunks(body: Uint8Array | string, size = 97): AsyncGenerator<Uint8Array> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (error instanceof IngestError) return { field: error.field, reason: error.reason };
    throw error;
  }
  throw new Error("was not refused");
}

const trend = { avg: 2.5, min: 0.4, med: 2.1, max: 40.2, "p(90)": 4.4, "p(95)": 6.1, "p(99)": 12.5 };
/** `k6 run --summary-export`: figures flat under each metric, indented. */
const summaryExport = JSON.stringify(
  {
    root_group: { name: "", path: "", id: "d41d8cd98f00b204e9800998ecf8427e", groups: {}, checks: {} },
    metrics: {
      http_reqs: { count: 1200, rate: 400 },
      "http_reqs{phase:measure}": { count: 1000, rate: 333.3, thresholds: { "count>=0": false } },
      "http_reqs{phase:measure,method:tools/call}": { count: 500, rate: 166.6 },
      "http_req_duration{phase:measure,method:tools/call}": trend,
      http_req_duration: trend,
      "http_req_failed{phase:measure}": { passes: 3, fails: 997, value: 0.003 },
      vus_max: { value: 8, min: 8, max: 8 },
    },
  },
  null,
  4,
);
/** The `handleSummary(data)` object as JSON.stringify(data) writes it: figures under `values`. */
const handleSummary = JSON.stringify({
  root_group: {},
  options: { summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)"] },
  state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: 3021.5 },
  metrics: {
    http_reqs: { type: "counter", contains: "default", values: { count: 90, rate: 29.8 } },
    http_req_duration: { type: "trend", contains: "time", values: trend },
    http_req_failed: { type: "rate", contains: "default", values: { rate: 0, passes: 0, fails: 90 } },
  },
});

describe("an upload's format", () => {
  it("is found from the first line", () => {
    expect(detectFormat('{"type":"start","t":1,"k6":"1.8.1"}')).toBe("perflab");
    expect(detectFormat('{"metric":"vus","type":"Point","data":{}}')).toBe("k6-json");
    expect(detectFormat("{")).toBe("k6-summary");
    expect(detectFormat(handleSummary)).toBe("k6-summary");
    expect(detectFormat("not json")).toBe("perflab");
  });

  it("given in the query and contradicted by the body fails the upload naming format", async () => {
    const body = [point("vus", T0, 1), ...request(T0, 3, {})].join("\n");
    expect(await refusal(() => decodeUploadBody(query({ format: "perflab" }), chunks(body), 1))).toEqual({
      field: "format",
      reason: "is perflab, but the body is k6-json",
    });
    expect(
      await refusal(() => decodeUploadBody(query({ format: "k6-summary-export" }), chunks(handleSummary), 1)),
    ).toEqual({ field: "format", reason: "is k6-summary-export, but the body is k6-handle-summary" });
  });
});

describe("a k6 summary upload", () => {
  it("keeps k6's figures as k6's, counts from the measured submetrics, and says what it lacks", async () => {
    const record = await decodeUploadBody(query(), chunks(summaryExport), 10);
    expect(record.summary).toMatchObject({ requests: 1000, ops: 500, errors: 3, httpRps: 500, opsRps: 250 });
    expect(record.summary.latency).toMatchObject({ count: 0, p95: null, p99: null });
    expect(record.points).toEqual([]);
    const upload = record.spec.upload;
    expect(upload.format).toBe("k6-summary-export");
    expect(upload.k6Summary?.latencyMetric).toBe("http_req_duration{phase:measure,method:tools/call}");
    expect(upload.k6Summary?.metrics["http_req_duration{phase:measure,method:tools/call}"]?.values).toEqual(
      trend,
    );
    expect(upload.lacks).toContain("from a k6 summary: no per-second series");
    expect((upload.lacks ?? []).join("\n")).toMatch(/k6's med\/p\(90\)\/p\(95\)\/p\(99\) .* cannot use them/);
  });

  it("of handleSummary data uses k6's whole-test rate where no measured submetric exists", async () => {
    const record = await decodeUploadBody(query(), chunks(gzipSync(handleSummary)), 10);
    expect(record.summary).toMatchObject({ requests: 90, httpRps: 29.8, ops: 0 });
    expect(record.spec.upload).toMatchObject({ format: "k6-handle-summary", compressed: true });
    expect(record.spec.upload.lacks).toContain(
      "warm-up not excluded: the summary has no phase:measure submetric",
    );
  });

  it("refuses a missing request metric and a figure JSON cannot hold, naming them", async () => {
    const noReqs = JSON.stringify({ metrics: { http_req_duration: { type: "trend", values: trend } } });
    expect(await refusal(() => decodeUploadBody(query(), chunks(noReqs), 1))).toMatchObject({
      field: "metrics.http_reqs",
    });
    const huge = summaryExport.replace('"count": 1200', '"count": 1e400');
    expect(await refusal(() => decodeUploadBody(query(), chunks(huge), 1))).toMatchObject({
      field: "metrics.http_reqs.count",
    });
  });

  it("refuses k6Requests the summary contradicts", async () => {
    const refused = await refusal(() =>
      decodeUploadBody(query({ k6Requests: "999" }), chunks(summaryExport), 1),
    );
    expect(refused.field).toBe("k6Requests");
  });
});

describe("a gzipped upload", () => {
  const tags = { phase: "measure", method: "tools/call", tool: "echo" };
  const body = [
    point("vus", T0, 2),
    ...Array.from({ length: 200 }, (_, i) => request(T0 + i * 10, 2, tags)).flat(),
  ]
    .join("\n")
    .concat("\n");

  it("reads as the plain body does", async () => {
    const plain = await decodeUploadBody(query(), chunks(body), body.length);
    const zipped = await decodeUploadBody(query(), chunks(gzipSync(body)), 1);
    expect(zipped.summary).toEqual(plain.summary);
    expect(zipped.spec.upload).toMatchObject({ format: "k6-json", compressed: true });
    expect(plain.spec.upload.lacks).toContain("no k6 version: --out json does not record it");
  });

  it("that was cut short is refused as the body", async () => {
    const whole = gzipSync(body);
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    expect(await refusal(() => decodeUploadBody(query(), chunks(cut), 1))).toEqual({
      field: "(body)",
      reason: "is a truncated gzip stream",
    });
  });
});
