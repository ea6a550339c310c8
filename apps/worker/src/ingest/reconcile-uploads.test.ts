import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { QUEUE_INGEST, type TIngestJob } from "@perflab/contracts";
import { createDb, type Db, ensureDefaultWorkspace } from "@perflab/db";
import { startTestPostgres, type TestPostgres } from "@perflab/db/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileUploads, type UploadProgress } from "./reconcile-uploads.ts";

let server: TestPostgres;
let db: Db;
let redis: ChildProcess;
let publisher: Redis;
let queue: Queue<TIngestJob>;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  server = await startTestPostgres({ migrate: true });
  db = createDb(server.url);
  const port = await freePort();
  redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", ""], {
    stdio: "ignore",
  });
  // Retried until redis-server listens; the refusals before then are expected.
  publisher = new Redis(`redis://127.0.0.1:${port}`, {
    maxRetriesPerRequest: null,
    retryStrategy: () => 100,
  });
  publisher.on("error", () => undefined);
  await publisher.ping();
  queue = new Queue<TIngestJob>(QUEUE_INGEST, { connection: publisher });
}, 120_000);

afterAll(async () => {
  await queue?.close();
  publisher?.disconnect();
  redis?.kill();
  await db?.$disconnect();
  await server?.stop();
});

/** A run the web app left ingesting an hour ago, its body `bytes` long in `chunks` rows (0: still arriving). */
async function leftIngesting(chunks: number, bytes: number): Promise<string> {
  const workspace = await ensureDefaultWorkspace(db);
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      status: "ingesting",
      name: "go · CI upload",
      spec: {},
      cellsTotal: 1,
      createdAt: new Date(Date.now() - 3_600_000),
      upload: { create: { query: { server: "go" }, bytes: BigInt(bytes) } },
    },
  });
  for (let seq = 0; seq < chunks; seq++) {
    await db.uploadChunk.create({ data: { runId: run.id, seq, data: Buffer.from(`line ${seq}\n`) } });
  }
  return run.id;
}

const pass = (progress: UploadProgress) =>
  reconcileUploads({ db, queue, publisher, log: pino({ level: "silent" }) }, progress, { graceMs: 60_000 });

describe("reconcileUploads", () => {
  it("queues again an upload stored whole whose ingest job was lost, once", async () => {
    const runId = await leftIngesting(2, 14);
    const progress: UploadProgress = new Map();
    expect((await pass(progress)).requeued).toContain(runId);
    expect(await (await queue.getJob(`ingest-${runId}`))?.getState()).toBe("waiting");
    // Its job is pending now: a second pass leaves it alone.
    expect((await pass(progress)).requeued).not.toContain(runId);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("ingesting");
  });

  it("leaves a body that still grows, and fails one that stopped arriving, with the reason and no rows", async () => {
    const runId = await leftIngesting(1, 0);
    const progress: UploadProgress = new Map();
    expect((await pass(progress)).failed).not.toContain(runId);
    await db.uploadChunk.create({ data: { runId, seq: 1, data: Buffer.from("more\n") } });
    expect((await pass(progress)).failed).not.toContain(runId);
    expect((await pass(progress)).failed).toContain(runId);
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/stopped arriving before its body was stored whole/);
    expect(await db.uploadChunk.count({ where: { runId } })).toBe(0);
    expect(await db.upload.count({ where: { runId } })).toBe(0);
  });
});
