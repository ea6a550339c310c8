/**
 * k6's standard result files uploaded unchanged: the lab's k6 loads the Go server once, writing
 * `--summary-export`, `--out json` and the scenario's handleSummary data; each is posted plain and
 * gzipped, and what the worker stores is what each file honestly holds (k6's request count, exact
 * percentiles from the raw samples, k6's own summary figures kept as k6's), with the run saying
 * what its format lacks.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import type { RunningServer } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  latencyStats,
} from "../../packages/metrics/src/index.ts";
import { repoRoot } from "../../scripts/lib/services.ts";
import { expectConforms, startGoServer, testDb } from "./helpers.ts";
import { ingested } from "./ingest-helpers.ts";

const DURATION = 3;
const WARMUP = 1;
const url = (pathname: string) => `${inject("webUrl")}${pathname}`;
const baseQuery = `server=go&warmupSec=${WARMUP}&durationSec=${DURATION}&tool=echo`;

type Files = { summaryExport: string; handleSummary: string; outJson: string; plainJson: string };
type Summary = { metrics: Record<string, Record<string, unknown> & { values?: Record<string, number> }> };
type Cell = {
  id: string;
  k6Version: string | null;
  summary: { requests: number; ops: number; latency: Record<string, number | null> } | null;
};
type Detail = {
  run: {
    status: string;
    spec: {
      upload: { bytes: number; format: string; compressed: boolean; lacks: string[]; k6Summary?: Summary };
    };
  };
  cells: Cell[];
};

let server: RunningServer | null = null;
let files: Files;
/** An --out json upload, judged against by the summary uploads' verdicts. */
let histogramRunId = "";

/** k6 as a CI job runs it, writing all three of its standard files from one run. */
async function runK6(dir: string, target: { TARGET: string; MCP_PATH: string }): Promise<Files> {
  await mkdir(dir, { recursive: true });
  const out: Files = {
    summaryExport: path.join(dir, "summary-export.json"),
    handleSummary: path.join(dir, "handle-summary.json"),
    outJson: path.join(dir, "out.json"),
    plainJson: path.join(dir, "plain.json"),
  };
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", K6_NO_USAGE_REPORT: "true" };
  const k6 = path.join(repoRoot, ".perflab/bin/k6");
  const script = "packages/scenarios/k6/mcp-tool-call.js";
  const flags = ["run", "--no-usage-report", "--quiet", "--summary-export", out.summaryExport];
  await promisify(execFile)(k6, [...flags, "--out", `json=${out.outJson}`, script], {
    cwd: repoRoot,
    env: {
      ...env,
      ...target,
      VUS: "2",
      WARMUP: String(WARMUP),
      DURATION: String(DURATION),
      TOOL: "echo",
      SUMMARY_PATH: out.handleSummary,
    },
    timeout: 60_000,
  });
  // A user's own script: no phase, method or tool tags, only k6's own (name is the URL).
  const plain = path.join(dir, "plain.js");
  await writeFile(
    plain,
    `import http from "k6/http";\nexport const options = { vus: 1, duration: "${WARMUP + DURATION}s" };\n` +
      `import { sleep } from "k6";\nexport default function () { http.get("${target.TARGET}/health"); sleep(0.01); }\n`,
  );
  await promisify(execFile)(
    k6,
    ["run", "--no-usage-report", "--quiet", "--out", `json=${out.plainJson}`, plain],
    {
      cwd: repoRoot,
      env,
      timeout: 60_000,
    },
  );
  return out;
}

async function uploadFile(file: string, query: string, gzip: boolean): Promise<Detail & { runId: string }> {
  const raw = await readFile(file);
  const body = gzip ? gzipSync(raw) : raw;
  const response = await fetch(url(`/api/v1/uploads?${query}`), {
    method: "POST",
    headers: {
      "content-type":
        file.endsWith(".json") && !file.includes("out") ? "application/json" : "application/x-ndjson",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    },
    body,
  });
  const created = (await response.json()) as { runId: string };
  expect(response.status, JSON.stringify(created)).toBe(202);
  const run = await ingested(created.runId);
  expect(run, JSON.stringify(run)).toMatchObject({ status: "succeeded" });
  const detail = (await (await fetch(url(`/api/v1/runs/${created.runId}`))).json()) as Detail;
  await expectConforms(detail, "/api/v1/runs/{id}", "get", 200, "application/json");
  // Every byte sent was stored and read: what the worker decoded is the file.
  expect(detail.run.spec.upload.bytes).toBe(body.length);
  return { ...detail, runId: created.runId };
}

/** The NDJSON's http_req_duration samples of the measured tool calls, as one lab histogram. */
async function rawPercentiles(file: string) {
  const hist = createLatencyHistogram();
  for (const line of (await readFile(file, "utf8")).split("\n")) {
    if (!line.includes('"metric":"http_req_duration"') || !line.includes('"type":"Point"')) continue;
    const { data } = JSON.parse(line) as { data: { value: number; tags: Record<string, string> } };
    if (data.tags.phase === "measure" && data.tags.method === "tools/call") {
      hist.recordValue(Math.max(1, Math.round(data.value * 1000)));
    }
  }
  return latencyStats(decodeHistogram(encodeHistogram(hist)));
}

const measured = async (file: string, key: string) =>
  JSON.parse(await readFile(file, "utf8")).metrics[key] as Record<string, unknown> & {
    values?: Record<string, number>;
  };

beforeAll(async () => {
  const go = await startGoServer("uploads-k6-standard");
  server = go.server;
  files = await runK6(path.join(inject("tmpDir"), "uploads-k6-standard"), {
    TARGET: go.baseUrl,
    MCP_PATH: go.mcpPath,
  });
}, 180_000);

afterAll(async () => {
  await server?.stop(5_000);
});

describe("k6's standard result files as uploads", () => {
  it.each([false, true])(
    "--out json (gzip %s): k6's request count, percentiles of the raw samples, a per-second series",
    async (gzip) => {
      const k6Count = (await measured(files.handleSummary, "http_reqs{phase:measure}")).values!.count!;
      const run = await uploadFile(files.outJson, `${baseQuery}&k6Requests=${k6Count}`, gzip);
      expect(run.run.spec.upload).toMatchObject({ format: "k6-json", compressed: gzip });
      expect(run.run.spec.upload.lacks).toContain("no k6 version: --out json does not record it");
      histogramRunId = run.runId;
      const cell = run.cells[0]!;
      expect(cell.summary!.requests).toBe(k6Count);
      const direct = await rawPercentiles(files.outJson);
      expect(cell.summary!.latency).toMatchObject({
        p50: direct.p50,
        p90: direct.p90,
        p95: direct.p95,
        p99: direct.p99,
      });
      expect(await testDb().metricPoint.count({ where: { cellId: cell.id } })).toBeGreaterThanOrEqual(
        DURATION,
      );
    },
  );

  it.each([
    ["summaryExport", "k6-summary-export"],
    ["handleSummary", "k6-handle-summary"],
  ] as const)(
    "%s: k6's figures stored as k6's, its count as the requests, and no histogram",
    async (key, format) => {
      for (const gzip of [false, true]) {
        const run = await uploadFile(files[key], baseQuery, gzip);
        const upload = run.run.spec.upload;
        expect(upload).toMatchObject({ format, compressed: gzip });
        const latencyKey = "http_req_duration{phase:measure,method:tools/call}";
        const fromFile = await measured(files[key], latencyKey);
        const figures = fromFile.values ?? fromFile;
        expect(upload.k6Summary!.metrics[latencyKey]!.values!["p(95)"]).toBe(figures["p(95)"]);
        const count = (await measured(files[key], "http_reqs{phase:measure}")) as {
          values?: { count: number };
          count?: number;
        };
        expect(run.cells[0]!.summary!.requests).toBe(count.values?.count ?? count.count);
        expect(run.cells[0]!.summary!.latency).toMatchObject({ p50: null, p95: null, p99: null });
        expect(upload.lacks).toContain("from a k6 summary: no per-second series");
        expect(upload.lacks.join("; ")).toMatch(/k6's .*p\(95\).* cannot use them/);
        expect(await testDb().metricPoint.count({ where: { cellId: run.cells[0]!.id } })).toBe(0);
        // k6's p(95) is no histogram: a verdict refuses it by name, against a run that has one.
        const verdict = await fetch(url(`/api/v1/runs/${run.runId}/verdict?baseline=${histogramRunId}`));
        expect(verdict.status).toBe(422);
        const problem = (await verdict.json()) as { errors: { field: string }[] };
        expect(problem.errors.map((e) => e.field)).toEqual(["id"]);
        // A cross-run comparison says why it has no latency for the summary, and uses the histogram.
        const compared = (await (
          await fetch(url(`/api/v1/comparison?runs=${run.runId},${histogramRunId}`))
        ).json()) as { runs: { id: string; unusable?: string | null }[] };
        await expectConforms(compared, "/api/v1/comparison", "get", 200, "application/json");
        expect(compared.runs.map((r) => r.unusable ?? null)).toEqual([
          expect.stringContaining("uploaded as a k6 summary"),
          null,
        ]);
      }
    },
  );

  it("a user's script without tags: whole requests, warm-up left out by the query", async () => {
    const run = await uploadFile(
      files.plainJson,
      "server=go&warmupSec=1&durationSec=3&scenario=my-script",
      false,
    );
    const summary = run.cells[0]!.summary!;
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.latency.p99).not.toBeNull();
  });

  it("a format the body contradicts fails the run naming format", async () => {
    const response = await fetch(url(`/api/v1/uploads?${baseQuery}&format=perflab`), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await readFile(files.summaryExport),
    });
    const { runId } = (await response.json()) as { runId: string };
    expect(response.status).toBe(202);
    const run = await ingested(runId);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("(format: ");
    expect(await testDb().cell.count({ where: { runId } })).toBe(0);
  });
});
