import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { INGEST_JOB_OPTIONS, JOB_UPLOAD_INGEST, QUEUE_INGEST, runChannel } from "@perflab/contracts";
import { createDb, type Db, ensureDefaultWorkspace, storeUploadBody } from "@perflab/db";
import { startTestPostgres, type TestPostgres } from "@perflab/db/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startIngestWorker } from "./ingest-worker.ts";

let server: TestPostgres;
let db: Db;
let redis: ChildProcess;
let redisUrl = "";

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
  redisUrl = `redis://127.0.0.1:${port}`;
  // Retried until redis-server listens; the refusals before then are expected.
  const probe = new Redis(redisUrl, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
  probe.on("error", () => undefined);
  await probe.ping();
  probe.disconnect();
}, 120_000);

afterAll(async () => {
  redis?.kill();
  await db?.$disconnect();
  await server?.stop();
});

/** A one-line-short output the web app has stored: the run ingesting, its job not yet queued. */
async function storedRun(body: string): Promise<string> {
  const workspace = await ensureDefaultWorkspace(db);
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      status: "ingesting",
      name: "go · CI upload",
      spec: {},
      cellsTotal: 1,
      upload: { create: { query: { server: "go", durationSec: "3" } } },
    },
  });
  async function* once() {
    yield Buffer.from(body);
  }
  await storeUploadBody(db, run.id, once(), { maxBytes: 2 ** 20, tooLarge: () => new Error("too large") });
  return run.id;
}

describe("startIngestWorker", () => {
  it("takes an upload.ingest job, fails the run it cannot read with the reason, and tells its page", async () => {
    const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
    const subscriber = new Redis(redisUrl);
    const queue = new Queue(QUEUE_INGEST, { connection: new Redis(redisUrl, { maxRetriesPerRequest: 3 }) });
    const worker = await startIngestWorker({
      db,
      redisUrl,
      databaseUrl: server.url,
      rollupMinSeconds: 600,
      publisher,
      log: pino({ level: "silent" }),
    });
    try {
      const runId = await storedRun('{"type":"start","t":1700000000000,"k6":"1.8.1"}\n{oops\n');
      await subscriber.subscribe(runChannel(runId));
      const event = once(subscriber, "message");
      await queue.add(JOB_UPLOAD_INGEST, { runId }, { ...INGEST_JOB_OPTIONS, jobId: `ingest-${runId}` });
      const [, message] = (await event) as [string, string];
      expect(JSON.parse(message)).toEqual({
        type: "run",
        runId,
        status: "failed",
        cellsDone: 0,
        cellsTotal: 0,
      });
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("failed");
      expect(run.error).toContain("(line 2: is not valid JSON)");
      expect(await db.upload.count({ where: { runId } })).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
      subscriber.disconnect();
      publisher.disconnect();
    }
  }, 90_000);
});
