/**
 * CI uploads against the real stack: the real k6 with perflab's output loads the Go server, the
 * NDJSON it wrote is posted to /api/v1/uploads, and the stored run's summary is the one the worker's
 * aggregation gives for the same lines (k6's own count of measured requests included). The lab answers
 * 202 and its worker ingests the body: a bad query is refused at once and leaves no run behind; output
 * the worker refuses fails the run with the line or parameter named, and leaves no cell behind.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { ZK6OutputLine } from "@perflab/contracts";
import type { RunningServer } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  CellAggregator,
  createLatencyHistogram,
  encodeHistogram,
  ROLLUP_LEVELS,
} from "../../packages/metrics/src/index.ts";
import { expectConforms, runK6ToFiles, startGoServer, testDb } from "./helpers.ts";
import { ingested } from "./ingest-helpers.ts";

type Problem = {
  type: string;
  status: number;
  detail?: string;
  errors?: { field: string; message: string }[];
};
type RunDetail = {
  run: { id: string; source: string; status: string; name: string; spec: { servers: string[] } };
  cells: {
    status: string;
    serverName: string;
    driver: string;
    k6Version: string | null;
    durationSeconds: number;
    warmupSeconds: number;
    vus: number | null;
    params: { tool?: string };
    summary: {
      requests: number;
      httpRps: number;
      latency: { p50: number | null; p99: number | null; maxMs: number | null };
    } | null;
  }[];
};

const url = (pathname: string) => `${inject("webUrl")}${pathname}`;

const DURATION = 3;
const WARMUP = 1;

let server: RunningServer | null = null;
let target = { TARGET: "", MCP_PATH: "" };
let ndjson = "";
let k6Measured = 0;

function upload(body: string, query: string, contentType = "application/x-ndjson") {
  return fetch(url(`/api/v1/uploads?${query}`), {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
}

const baseQuery = `server=go&warmupSec=${WARMUP}&durationSec=${DURATION}`;

/**
 * An upload the lab took (202) whose output its worker refused: the run failed, its reason naming
 * `field` (the line, group or parameter) as a 422 named it when the web app judged the output.
 */
async function refusedByWorker(response: Response, field: string) {
  const created = (await response.json()) as { runId: string };
  expect(response.status, JSON.stringify(created)).toBe(202);
  await expectConforms(created, "/api/v1/uploads", "post", 202, "application/json");
  const run = await ingested(created.runId);
  expect(run.status, JSON.stringify(run)).toBe("failed");
  expect(run.error).toContain(`(${field}: `);
  return { runId: created.runId, detail: run.error ?? "" };
}

/** Runs the worker refused hold no cell, summary or point, and their stored bodies are gone. */
async function expectNothingStored(runIds: string[]) {
  const db = testDb();
  expect(await db.cell.count({ where: { runId: { in: runIds } } })).toBe(0);
  expect(await db.upload.count({ where: { runId: { in: runIds } } })).toBe(0);
  expect(await db.uploadChunk.count({ where: { runId: { in: runIds } } })).toBe(0);
}

/** An upload the lab took (202) and its worker stored: the created run, once ingested. */
async function accepted(response: Response): Promise<{ runId: string; url: string }> {
  const created = (await response.json()) as { runId: string; url: string };
  expect(response.status, JSON.stringify(created)).toBe(202);
  const run = await ingested(created.runId);
  expect(run, JSON.stringify(run)).toMatchObject({ status: "succeeded" });
  return created;
}

beforeAll(async () => {
  const go = await startGoServer("uploads-test");
  server = go.server;
  target = { TARGET: go.baseUrl, MCP_PATH: go.mcpPath };
  const files = await runK6ToFiles(path.join(inject("tmpDir"), "uploads"), "out", {
    ...target,
    VUS: "2",
    WARMUP: String(WARMUP),
    DURATION: String(DURATION),
    TOOL: "echo",
    ARGS: JSON.stringify({ message: "hello" }),
  });
  ndjson = await readFile(files.out, "utf8");
  const summary = JSON.parse(await readFile(files.summary, "utf8")) as {
    metrics: Record<string, { values: { count: number } }>;
  };
  k6Measured = summary.metrics["http_reqs{phase:measure}"]!.values.count;
}, 120_000);

afterAll(async () => {
  await server?.stop(5_000);
});

describe("POST /api/v1/uploads", () => {
  it("stores k6's output as a succeeded run whose summary is the worker's aggregation of it", async () => {
    expect(k6Measured).toBeGreaterThan(0);
    const query =
      `${baseQuery}&name=ci%20upload&gitRepo=acme%2Fmcp&gitBranch=main&gitCommit=abc123&gitPr=42` +
      `&k6Requests=${k6Measured}`;
    const response = await upload(ndjson, query);
    const created = await accepted(response.clone());
    expect(created.url).toMatch(new RegExp(`/runs/${created.runId}$`));
    expect(response.headers.get("location")).toBe(created.url);
    await expectConforms(created, "/api/v1/uploads", "post", 202, "application/json");

    const detail = (await (await fetch(url(`/api/v1/runs/${created.runId}`))).json()) as RunDetail;
    await expectConforms(detail, "/api/v1/runs/{id}", "get", 200, "application/json");
    expect(detail.run).toMatchObject({ source: "api", status: "succeeded", name: "ci upload" });
    expect(detail.run.spec.servers).toEqual(["go"]);
    expect(detail.cells).toHaveLength(1);
    const cell = detail.cells[0]!;
    expect(cell).toMatchObject({
      status: "succeeded",
      serverName: "go",
      driver: "local",
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      vus: 2,
      params: { tool: "echo" },
    });
    const start = ZK6OutputLine.parse(JSON.parse(ndjson.split("\n")[0]!));
    expect(start.type === "start" && cell.k6Version === start.k6).toBe(true);
    // k6's own count of the measured window is what perflab stored.
    expect(cell.summary!.requests).toBe(k6Measured);
    expect(cell.summary!.httpRps).toBeCloseTo(k6Measured / DURATION, 6);

    // Percentiles are the merged histograms, exactly as the worker's aggregator computes them.
    const aggregator = new CellAggregator();
    for (const raw of ndjson.split("\n").filter(Boolean)) {
      const line = ZK6OutputLine.parse(JSON.parse(raw));
      if (line.type === "interval") aggregator.addInterval(line);
    }
    const expected = aggregator.summary({ durationSec: DURATION });
    expect(cell.summary!.latency.p50).toBe(expected.latency.p50);
    expect(cell.summary!.latency.p99).toBe(expected.latency.p99);
    expect(cell.summary!.latency.maxMs).toBe(expected.latency.maxMs);

    const db = testDb();
    const run = await db.run.findUniqueOrThrow({
      where: { id: created.runId },
      include: { cells: { include: { summary: true } } },
    });
    expect([run.gitRepo, run.gitBranch, run.gitCommit, run.gitPr]).toEqual([
      "acme/mcp",
      "main",
      "abc123",
      42,
    ]);
    expect(run.cells[0]!.summary!.k6Requests).toBe(BigInt(k6Measured));
    // The dashboard renders the uploaded run like any other.
    const page = await fetch(created.url.replace(/^https?:\/\/[^/]+/, inject("webUrl")));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("ci upload");
    const points = await db.metricPoint.findMany({
      where: { cellId: run.cells[0]!.id, phase: "measure" },
      orderBy: { t: "asc" },
    });
    expect(points.length).toBeGreaterThanOrEqual(3);
    expect(points.reduce((sum, p) => sum + p.requests, 0)).toBeGreaterThanOrEqual(k6Measured);
    expect(points.every((p) => p.histogram !== null || p.requests === 0)).toBe(true);
    // A long upload's charts read rollups: written after the commit, for every level, counting
    // every stored second once (the suite's web rolls up anything above 2 seconds).
    const all = await db.metricPoint.findMany({ where: { cellId: run.cells[0]!.id } });
    const rollups = await db.metricRollup.findMany({ where: { cellId: run.cells[0]!.id } });
    expect([...new Set(rollups.map((r) => r.bucketSeconds))].sort((a, b) => a - b)).toEqual([
      ...ROLLUP_LEVELS,
    ]);
    for (const level of ROLLUP_LEVELS) {
      const ofLevel = rollups.filter((r) => r.bucketSeconds === level);
      expect(
        ofLevel.reduce((sum, r) => sum + r.seconds, 0),
        `level ${level}`,
      ).toBe(all.length);
      expect(
        ofLevel.reduce((sum, r) => sum + r.requests, 0),
        `level ${level}`,
      ).toBe(all.reduce((sum, p) => sum + p.requests, 0));
    }
  });

  it("a script run by hand without ARGS sends its tool's defaults, the ones an upload without arguments stores", async () => {
    const files = await runK6ToFiles(path.join(inject("tmpDir"), "uploads"), "defaults", {
      ...target,
      VUS: "1",
      WARMUP: "0",
      DURATION: "1",
      TOOL: "fibonacci",
    });
    const k6Summary = JSON.parse(await readFile(files.summary, "utf8")) as {
      metrics: Record<string, { values: { count?: number; passes?: number; fails?: number } }>;
    };
    // fibonacci(20) answered: no tool errors (echo's {"message":"hello"} would be one every call).
    expect(k6Summary.metrics["http_reqs{phase:measure,method:tools/call}"]!.values.count).toBeGreaterThan(0);
    expect(k6Summary.metrics.mcp_op_errors?.values.count ?? 0).toBe(0);
    expect(k6Summary.metrics.checks!.values.fails).toBe(0);

    const output = await readFile(files.out, "utf8");
    const response = await upload(output, `server=go&warmupSec=0&durationSec=1&tool=fibonacci`);
    const created = await accepted(response);
    const detail = (await (await fetch(url(`/api/v1/runs/${created.runId}`))).json()) as {
      cells: { params: unknown; summary: { errors: number } }[];
    };
    expect(detail.cells[0]!.params).toEqual({ tool: "fibonacci", arguments: { n: 20 } });
    expect(detail.cells[0]!.summary.errors).toBe(0);
  });

  it("counts the warm-up from the test run's start, after k6 initialised its VUs, as the script's phase tag does", async () => {
    // 800 VUs take k6 a noticeable time to initialise; 20 calls a second keep the load light.
    const files = await runK6ToFiles(path.join(inject("tmpDir"), "uploads"), "init", {
      ...target,
      RATE: "20",
      MAX_VUS: "800",
      WARMUP: "1",
      DURATION: "2",
      TOOL: "echo",
      ARGS: JSON.stringify({ message: "init" }),
    });
    const text = await readFile(files.out, "utf8");
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((l) => ZK6OutputLine.parse(JSON.parse(l)));
    const start = lines[0]!;
    expect(start.type).toBe("start");
    const runAt = lines.findIndex((l) => l.type === "run");
    expect(runAt).toBeGreaterThan(0);
    const run = lines[runAt] as Extract<(typeof lines)[number], { type: "run" }>;
    expect(lines.filter((l) => l.type === "run")).toHaveLength(1);
    // The start line precedes VU initialisation; the run line follows it.
    expect(run.t - (start as typeof run).t).toBeGreaterThanOrEqual(100);
    const intervals = lines.filter((l) => l.type === "interval");
    const firstRequest = lines.findIndex(
      (l) => l.type === "interval" && l.groups.some((g) => g.requests > 0),
    );
    expect(firstRequest).toBeGreaterThan(runAt);
    // No request tagged measure ended before the window the run line plans.
    const windowFirst = Math.floor((run.t + 1_000) / 1000);
    const measured = intervals.filter((l) => l.groups.some((g) => g.phase === "measure" && g.requests > 0));
    expect(measured.length).toBeGreaterThan(0);
    expect(Math.min(...measured.map((l) => l.t))).toBeGreaterThanOrEqual(windowFirst);

    const response = await upload(text, "server=go&warmupSec=1&durationSec=2&rate=20&maxVus=800");
    const created = await accepted(response);
    const cell = await testDb().cell.findFirstOrThrow({ where: { runId: created.runId } });
    expect(cell.measureStartedAt?.getTime()).toBe(run.t + 1_000);
    expect(cell.measureEndedAt?.getTime()).toBe(run.t + 3_000);
  });

  it("stores an open-model upload's rate, VU pool and the calls dropped in its measured window", async () => {
    // Two VUs calling sleep(50 ms) at 100 calls a second drop most of them, warming up and after.
    const files = await runK6ToFiles(path.join(inject("tmpDir"), "uploads"), "open", {
      ...target,
      RATE: "100",
      MAX_VUS: "2",
      WARMUP: "2",
      DURATION: String(DURATION),
      TOOL: "sleep",
      ARGS: JSON.stringify({ ms: 50 }),
    });
    const open = await readFile(files.out, "utf8");
    const k6Summary = JSON.parse(await readFile(files.summary, "utf8")) as {
      metrics: Record<string, { values: { count: number } }>;
    };
    const wholeTest = k6Summary.metrics.dropped_iterations!.values.count;
    const lines = open
      .split("\n")
      .filter(Boolean)
      .map((l) => ZK6OutputLine.parse(JSON.parse(l)));
    const intervals = lines.filter((l) => l.type === "interval");
    // The measured window's seconds, as planned: the test run's start plus the 2 s warm-up, for the
    // duration; the seconds it touches, the part-seconds at its edges included.
    const run = lines.find((l) => l.type === "run");
    expect(run).toBeDefined();
    const windowStartMs = run!.t + 2_000;
    const first = Math.floor(windowStartMs / 1000);
    const last = Math.ceil((windowStartMs + DURATION * 1000) / 1000) - 1;
    const droppedWhere = (keep: (t: number) => boolean) =>
      intervals.filter((l) => keep(l.t)).reduce((sum, l) => sum + l.dropped!, 0);
    const inWindow = droppedWhere((t) => t >= first && t <= last);
    expect(droppedWhere((t) => t < first)).toBeGreaterThan(0);
    expect(inWindow).toBeGreaterThan(0);
    // Every line carries the count, and the lines hold all of k6's own.
    expect(intervals.every((l) => l.dropped !== undefined)).toBe(true);
    expect(droppedWhere(() => true)).toBe(wholeTest);

    // The CLI sends k6's whole-test count; the lines' count of the measured window wins.
    const query = `server=go&warmupSec=2&durationSec=${DURATION}&rate=100&maxVus=2&droppedCalls=${wholeTest}`;
    const response = await upload(open, query);
    const created = await accepted(response);
    const detail = (await (await fetch(url(`/api/v1/runs/${created.runId}`))).json()) as RunDetail & {
      cells: {
        vus: number | null;
        rate: number | null;
        maxVus: number | null;
        summary: { droppedCalls: number | null };
      }[];
      run: { spec: { loadLevels: unknown[] } };
    };
    await expectConforms(detail, "/api/v1/runs/{id}", "get", 200, "application/json");
    expect(detail.run.spec.loadLevels).toEqual([{ rate: 100, maxVus: 2 }]);
    expect(detail.cells[0]).toMatchObject({ vus: null, rate: 100, maxVus: 2 });
    expect(detail.cells[0]!.summary.droppedCalls).toBe(inWindow);
    expect(inWindow).toBeLessThan(wholeTest);

    // An older output, whose lines have no dropped count: the query's count is all there is.
    const older = ndjson.replace(/"dropped":\d+,/g, "");
    expect(older).not.toContain('"dropped"');
    const olderResponse = await upload(older, `${baseQuery}&rate=100&maxVus=2&droppedCalls=7`);
    const olderRun = await accepted(olderResponse);
    const olderDetail = (await (await fetch(url(`/api/v1/runs/${olderRun.runId}`))).json()) as {
      cells: { summary: { droppedCalls: number | null } }[];
    };
    expect(olderDetail.cells[0]!.summary.droppedCalls).toBe(7);

    // The call named in full is stored as a lab run stores it: the same workload, so they compare.
    const args = encodeURIComponent(JSON.stringify({ message: "hello" }));
    const named = await upload(ndjson, `${baseQuery}&tool=echo&arguments=${args}&session=per-call`);
    const namedRun = await accepted(named);
    const stored = (await (await fetch(url(`/api/v1/runs/${namedRun.runId}`))).json()) as RunDetail;
    expect(stored.cells[0]!.params).toEqual({
      tool: "echo",
      arguments: { message: "hello" },
      session: "per-call",
    });
  });

  it("refuses bad uploads with the line or parameter named, and stores nothing of them", async () => {
    const db = testDb();
    const before = await db.run.count();
    const lines = ndjson.split("\n").filter(Boolean);
    const expectProblem = async (response: Response, status: number, field: string) => {
      const problem = (await response.json()) as Problem;
      expect(response.status, JSON.stringify(problem)).toBe(status);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(problem.errors?.map((e) => e.field)).toContain(field);
      await expectConforms(problem, "/api/v1/uploads", "post", status, "application/problem+json");
      return problem;
    };
    const failed: string[] = [];
    const expectFailed = async (response: Response, field: string) => {
      const refused = await refusedByWorker(response, field);
      failed.push(refused.runId);
      return refused;
    };

    const garbage = [...lines.slice(0, 2), "{not json", ...lines.slice(2)].join("\n");
    const bad = await expectFailed(await upload(garbage, baseQuery), "line 3");
    expect(bad.detail).toContain("Line 3");

    const wrongShape = [lines[0], '{"type":"interval","t":"soon"}', ...lines.slice(1)].join("\n");
    await expectFailed(await upload(wrongShape, baseQuery), "line 2");

    await expectProblem(await upload(ndjson, `warmupSec=${WARMUP}&durationSec=${DURATION}`), 422, "server");
    await expectProblem(await upload(ndjson, "server=go&durationSec=soon"), 422, "durationSec");

    const noEnd = lines.filter((l) => !l.includes('"type":"end"')).join("\n");
    expect((await expectFailed(await upload(noEnd, baseQuery), "(body)")).detail).toMatch(/no end line/);
    const noStart = lines.slice(1).join("\n");
    await expectFailed(await upload(noStart, baseQuery), "line 1");
    await expectProblem(await upload("", baseQuery), 422, "(body)");

    await expectFailed(await upload(ndjson, `${baseQuery}&k6Requests=${k6Measured + 1}`), "k6Requests");
    await expectProblem(await upload(ndjson, `${baseQuery}&arguments=%7Boops`), 422, "arguments");
    // Text Postgres cannot store: an unpaired surrogate, spelt in JSON, in the arguments or a line's tag.
    const lone = encodeURIComponent('{"message":"\\ud800"}');
    await expectProblem(await upload(ndjson, `${baseQuery}&arguments=${lone}`), 422, "arguments");
    const at = lines.findIndex((l) => l.includes('"type":"interval"'));
    const surrogate = lines.map((l, i) => (i === at ? l.replace(/"tool":"[^"]*"/, '"tool":"\\udc00"') : l));
    expect(surrogate[at]).toContain('"tool":"\\udc00"');
    await expectFailed(await upload(surrogate.join("\n"), baseQuery), `line ${at + 1}`);
    // A VU count is whole: 2.5 VUs is no load level.
    const fractional = lines.map((l, i) => (i === at ? l.replace(/"vus":\d+/, '"vus":2.5') : l));
    expect(fractional[at]).toContain('"vus":2.5');
    await expectFailed(await upload(fractional.join("\n"), baseQuery), `line ${at + 1}`);
    await expectProblem(await upload(ndjson, `${baseQuery}&session=per-request`), 422, "session");
    // One load model per upload, and the open model's fields only with its rate.
    await expectProblem(await upload(ndjson, `${baseQuery}&vus=2&rate=100`), 422, "vus");
    await expectProblem(await upload(ndjson, `${baseQuery}&maxVus=4`), 422, "maxVus");
    await expectProblem(await upload(ndjson, `${baseQuery}&droppedCalls=3`), 422, "droppedCalls");
    await expectProblem(await upload(ndjson, baseQuery, "multipart/form-data"), 415, "content-type");
    // Over the limit: refused by its length before the body is read.
    await expectProblem(await upload("x".repeat(50 * 2 ** 20 + 1), baseQuery), 413, "(body)");

    // A blank parameter is named, not read as 0.
    await expectProblem(await upload(ndjson, `${baseQuery}&k6Requests=`), 422, "k6Requests");
    await expectProblem(
      await upload(ndjson, `server=go&durationSec=${DURATION}&warmupSec=`),
      422,
      "warmupSec",
    );

    // Refused at once: no run. Refused by the worker: a failed run, without a cell or its stored body.
    expect(await db.run.count()).toBe(before + failed.length);
    await expectNothingStored(failed);
    // A scenario the catalog does not have is a script of the uploader's own, even one named like a
    // property every JavaScript object has.
    const own = await upload(ndjson, `${baseQuery}&scenario=toString`);
    const { runId: ownRun } = await accepted(own);
    expect((await db.cell.findFirstOrThrow({ where: { runId: ownRun } })).scenario).toBe("toString");
  });

  it("refuses an output that contradicts itself or its durationSec, naming the group or durationSec", async () => {
    const db = testDb();
    const before = await db.run.count();
    const lines = ndjson.split("\n").filter(Boolean);
    const failed: string[] = [];
    const expectProblem = async (response: Response, field: string) => {
      const refused = await refusedByWorker(response, field);
      failed.push(refused.runId);
      return refused;
    };
    /** The suite's output with the first measured tools/call group of a line changed. */
    const tampered = (change: (group: Record<string, unknown>) => void) => {
      let done = false;
      return lines
        .map((raw) => {
          const line = JSON.parse(raw) as { type: string; groups?: Record<string, unknown>[] };
          const group = line.groups?.find((g) => g.phase === "measure" && g.method === "tools/call");
          if (done || !group) return raw;
          done = true;
          change(group);
          return JSON.stringify(line);
        })
        .join("\n");
    };
    const echo = 'group {"phase":"measure","method":"tools/call","tool":"echo"}';
    await expectProblem(
      await upload(
        tampered((g) => (g.failed = 1_000_000)),
        baseQuery,
      ),
      echo,
    );
    await expectProblem(
      await upload(
        tampered((g) => (g.opErrors = 1_000_000)),
        baseQuery,
      ),
      echo,
    );
    const extra = await expectProblem(
      await upload(
        tampered((g) => (g.requests = (g.requests as number) + 1)),
        baseQuery,
      ),
      echo,
    );
    expect(extra.detail).toMatch(/histograms hold/);

    // The real output measured 3 s after a 1 s warm-up: 60 s are more than its lines cover.
    const long = await expectProblem(
      await upload(ndjson, `server=go&warmupSec=${WARMUP}&durationSec=60`),
      "durationSec",
    );
    expect(long.detail).toMatch(/lines end \d+ s after its start line/);
    // 20 s measured at 2 VUs, uploaded as 1 s: the rates would be 20 times too high.
    const start = JSON.parse(lines[0]!) as { t: number };
    const t0 = Math.floor(start.t / 1000);
    const h = createLatencyHistogram();
    for (let i = 0; i < 50; i++) h.recordValue(2_000);
    const second = (t: number) =>
      JSON.stringify({
        type: "interval",
        t,
        groups: [
          {
            phase: "measure",
            method: "tools/call",
            tool: "echo",
            requests: 50,
            failed: 0,
            hist: encodeHistogram(h),
          },
        ],
        iterations: 50,
        dataSent: 5_000,
        dataReceived: 10_000,
        vus: 2,
      });
    const twenty = [lines[0], ...Array.from({ length: 21 }, (_, i) => second(t0 + i)), '{"type":"end"}'].join(
      "\n",
    );
    const short = await expectProblem(await upload(twenty, "server=go&durationSec=1"), "durationSec");
    expect(short.detail).toMatch(/iterations ended more than 3 s after the first measured second/);

    expect(await db.run.count()).toBe(before + failed.length);
    await expectNothingStored(failed);
  });

  it("refuses histograms that lie about their length or range in the worker, while the web app keeps answering", async () => {
    const lines = ndjson.split("\n").filter(Boolean);
    /**
     * The suite's output with the first measured tools/call histogram's inflated header changed, and
     * the 1-based number of the line it is on.
     */
    const lying = (edit: (inflated: Buffer) => void) => {
      let at = 0;
      const body = lines
        .map((raw, i) => {
          const line = JSON.parse(raw) as { groups?: { phase: string; method: string; hist?: string }[] };
          const group = line.groups?.find(
            (g) => g.phase === "measure" && g.method === "tools/call" && g.hist,
          );
          if (at || !group) return raw;
          at = i + 1;
          const data = Buffer.from(group.hist!, "base64");
          const inflated = inflateSync(data.subarray(8, 8 + data.readInt32BE(4)));
          edit(inflated);
          const deflated = deflateSync(inflated);
          const head = Buffer.alloc(8);
          head.writeInt32BE(data.readInt32BE(0), 0);
          head.writeInt32BE(deflated.length, 4);
          group.hist = Buffer.concat([head, deflated]).toString("base64");
          return JSON.stringify(line);
        })
        .join("\n");
      return { body, field: `line ${at}` };
    };
    // Once decoded on the web app's only thread: 2^28 loops past the buffer's end, every request waiting.
    const long = lying((b) => b.writeInt32BE(2 ** 28, 4));
    const longPayload = upload(long.body, baseQuery);
    const waits: number[] = [];
    const reads = (async () => {
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const answer = await fetch(url("/api/v1/runs?limit=1"));
        waits.push(performance.now() - started);
        expect(answer.status).toBe(200);
      }
    })();
    const [{ detail }] = await Promise.all([longPayload.then((r) => refusedByWorker(r, long.field)), reads]);
    expect(detail).toMatch(/claims a payload of 268435456 bytes where \d+ are present/);
    // The figure docs/security.md quotes: the longest read while the hostile upload was handled.
    console.info(
      `hostile upload: the longest of ${waits.length} reads took ${Math.round(Math.max(...waits))} ms`,
    );
    const lowest = lying((b) => b.writeBigInt64BE(1_000_000_000n, 16));
    const { detail: range } = await refusedByWorker(await upload(lowest.body, baseQuery), lowest.field);
    expect(range).toMatch(/lowest trackable value of 1000000000/);
  });
});
