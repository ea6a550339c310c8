import type { TIngestJob } from "@perflab/contracts";
import { createDb, type Db, readUploadBody, UPLOAD_CHUNK_BYTES } from "@perflab/db";
import { startTestPostgres, type TestPostgres } from "@perflab/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createUpload, UPLOAD_MAX_BYTES } from "./create-upload";

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

const query = { server: "go", durationSec: "3", warmupSec: "1" };

/** A body sent in pieces of `size`; `failAfter` pieces, the client goes away. */
function bodyOf(bytes: Uint8Array, size: number, failAfter = Number.POSITIVE_INFINITY) {
  let at = 0;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ >= failAfter) return controller.error(new Error("aborted"));
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
}

const collect = async (runId: string) => {
  const parts: Uint8Array[] = [];
  for await (const part of readUploadBody(db, runId)) parts.push(part);
  return Buffer.concat(parts);
};

describe("createUpload", () => {
  it("stores the body in rows of about 1 MiB as it arrives, and queues the run's ingest", async () => {
    const bytes = new Uint8Array(2 * UPLOAD_CHUNK_BYTES + 12_345).map((_, i) => i % 251);
    const jobs: TIngestJob[] = [];
    const created = await createUpload({
      db,
      query,
      body: bodyOf(bytes, 64 * 1024),
      origin: "http://lab.test",
      enqueue: async (job) => void jobs.push(job),
    });
    expect(jobs).toEqual([{ runId: created.runId }]);
    expect(created.url).toBe(`http://lab.test/runs/${created.runId}`);
    const run = await db.run.findUniqueOrThrow({ where: { id: created.runId }, include: { upload: true } });
    expect(run).toMatchObject({ source: "api", status: "ingesting", name: "go · CI upload", cellsTotal: 1 });
    expect(run.upload?.query).toEqual(query);
    expect(run.upload?.bytes).toBe(BigInt(bytes.length));
    expect(await db.uploadChunk.count({ where: { runId: created.runId } })).toBe(3);
    expect(Buffer.compare(await collect(created.runId), Buffer.from(bytes))).toBe(0);
  });

  it("leaves nothing behind when the client goes away mid-body or the job cannot be queued", async () => {
    const before = await db.run.count();
    const bytes = new Uint8Array(3 * UPLOAD_CHUNK_BYTES);
    const gone = createUpload({
      db,
      query,
      body: bodyOf(bytes, 256 * 1024, 6),
      origin: "http://lab.test",
      enqueue: async () => undefined,
    });
    await expect(gone).rejects.toThrow("aborted");
    const unqueued = createUpload({
      db,
      query,
      body: bodyOf(bytes, 256 * 1024),
      origin: "http://lab.test",
      enqueue: async () => {
        throw new Error("enqueue timed out after 5000 ms");
      },
    });
    await expect(unqueued).rejects.toThrow("enqueue timed out");
    expect(await db.run.count()).toBe(before);
    expect(await db.upload.count({ where: { run: { status: "ingesting" } } })).toBe(
      await db.run.count({ where: { status: "ingesting" } }),
    );
    expect(await db.uploadChunk.count()).toBe(
      await db.uploadChunk.count({ where: { upload: { run: { status: "ingesting" } } } }),
    );
  });

  it("refuses a bad query, a body declared too large and an empty body, storing nothing", async () => {
    const before = await db.run.count();
    const refused = async (input: Partial<Parameters<typeof createUpload>[0]>) => {
      try {
        await createUpload({
          db,
          query,
          body: bodyOf(new Uint8Array(0), 1),
          origin: "http://lab.test",
          enqueue: async () => undefined,
          ...input,
        });
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return {
          status: (error as AppError).status,
          fields: (error as AppError).errors?.map((e) => e.field),
        };
      }
      throw new Error("the upload was accepted");
    };
    expect(await refused({ query: { ...query, durationSec: "0" } })).toEqual({
      status: 422,
      fields: ["durationSec"],
    });
    expect(await refused({ declaredBytes: UPLOAD_MAX_BYTES + 1 })).toEqual({
      status: 413,
      fields: ["(body)"],
    });
    expect(await refused({})).toEqual({ status: 422, fields: ["(body)"] });
    expect(await db.run.count()).toBe(before);
  });
});
