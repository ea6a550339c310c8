import { createDb, type Db, ensureDefaultWorkspace, storeUploadBody } from "@perflab/db";
import { startTestPostgres, type TestPostgres } from "@perflab/db/testing";
import { createLatencyHistogram, encodeHistogram, parseK6Output } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestProcess } from "./ingest-process.ts";
import { ingestUpload } from "./ingest-upload.ts";

let server: TestPostgres;
let db: Db;

beforeAll(async () => {
  server = await startTestPostgres({ migrate: true });
  db = createDb(server.url);
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

const T0 = 1_700_000_000;
function hist(...micros: number[]): string {
  const h = createLatencyHistogram();
  for (const us of micros) h.recordValue(us);
  return encodeHistogram(h);
}
const interval = (t: number, phase: string, micros: number[]) =>
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
    vus: 2,
  });
/** One warm-up second, three measured, one more: what k6 writes for warmupSec=1 durationSec=3. */
const ndjson = [
  JSON.stringify({ type: "start", t: T0 * 1000, k6: "k6 v1.8.1" }),
  JSON.stringify({ type: "run", t: T0 * 1000 + 200 }),
  interval(T0, "warmup", [50_000]),
  interval(T0 + 1, "measure", [1_000, 2_000]),
  interval(T0 + 2, "measure", [3_000, 4_000]),
  interval(T0 + 3, "measure", [5_000]),
  interval(T0 + 4, "measure", []),
  JSON.stringify({ type: "end" }),
  "",
].join("\n");
const query = { server: "go", durationSec: "3", warmupSec: "1", k6Requests: "5" };

/** An upload as the web app leaves it: the run ingesting, its query and body stored. */
async function stored(body: string, q: Record<string, string> = query): Promise<string> {
  const workspace = await ensureDefaultWorkspace(db);
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      status: "ingesting",
      name: "go · CI upload",
      spec: {},
      cellsTotal: 1,
      upload: { create: { query: q } },
    },
  });
  async function* pieces() {
    const bytes = Buffer.from(body);
    for (let at = 0; at < bytes.length; at += 100) yield bytes.subarray(at, at + 100);
  }
  await storeUploadBody(db, run.id, pieces(), { maxBytes: 2 ** 20, tooLarge: () => new Error("too large") });
  return run.id;
}

const left = async (runId: string) => ({
  cells: await db.cell.count({ where: { runId } }),
  uploads: await db.upload.count({ where: { runId } }),
  chunks: await db.uploadChunk.count({ where: { runId } }),
});

describe("ingestUpload", () => {
  it("stores the run's cell, summary and points in a child process at nice 19, then drops the body", async () => {
    const runId = await stored(ndjson);
    const child = createIngestProcess({ DATABASE_URL: server.url });
    try {
      expect(await child.ingest(runId)).toEqual({ status: "succeeded" });
      // The same process takes the next upload.
      expect(await child.ingest(await stored(ndjson))).toEqual({ status: "succeeded" });
    } finally {
      child.close();
    }
    const run = await db.run.findUniqueOrThrow({
      where: { id: runId },
      include: { cells: { include: { summary: true } } },
    });
    expect(run).toMatchObject({ status: "succeeded", cellsTotal: 1, cellsDone: 1, cellsFailed: 0 });
    expect(run.spec).toMatchObject({
      servers: ["go"],
      loadLevels: [{ vus: 2 }],
      upload: { k6Version: "k6 v1.8.1", lines: 8, bytes: Buffer.byteLength(ndjson) },
    });
    const cell = run.cells[0]!;
    expect(cell).toMatchObject({ status: "succeeded", serverName: "go", k6Version: "k6 v1.8.1" });
    const expected = parseK6Output(ndjson, { warmupSeconds: 1, measuredSeconds: 3 }).aggregator.summary({
      durationSec: 3,
    });
    expect(cell.summary).toMatchObject({ requests: 5n, k6Requests: 5n, latencyP99Ms: expected.latency.p99 });
    expect(await db.metricPoint.count({ where: { cellId: cell.id } })).toBe(5);
    expect(await left(runId)).toEqual({ cells: 1, uploads: 0, chunks: 0 });
  }, 60_000);

  it("fails the run with the line and its fault, writing no cell, and drops the body", async () => {
    const lines = ndjson.split("\n");
    lines[2] = "{oops";
    const runId = await stored(lines.join("\n"));
    const outcome = await ingestUpload({ db, runId });
    expect(outcome.status).toBe("failed");
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("line 3: is not valid JSON");
    expect(await left(runId)).toEqual({ cells: 0, uploads: 0, chunks: 0 });
  });

  it("fails the run naming the query's field the output contradicts", async () => {
    const runId = await stored(ndjson, { ...query, k6Requests: "6" });
    await ingestUpload({ db, runId });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("k6Requests: does not match the 5 measured requests");
    expect(await left(runId)).toEqual({ cells: 0, uploads: 0, chunks: 0 });
  });

  it("writes nothing for a run cancelled while its output was read", async () => {
    const runId = await stored(ndjson);
    await db.run.update({ where: { id: runId }, data: { status: "cancelled" } });
    expect(await ingestUpload({ db, runId })).toEqual({ status: "gone" });
    expect(await left(runId)).toEqual({ cells: 0, uploads: 0, chunks: 0 });
    // A job that comes back after its ingest ended finds nothing to do.
    expect(await ingestUpload({ db, runId })).toEqual({ status: "gone" });
  });
});
