import { fieldErrors, type TCreatedUpload, type TIngestJob, ZUploadQueryChecked } from "@perflab/contracts";
import { type Db, ensureDefaultWorkspace, type Prisma, storeUploadBody } from "@perflab/db";
import { pendingUploadSpec } from "@perflab/metrics";
import type { Caller } from "../auth";
import { AppError } from "../errors";
import { assertBaselineExists } from "./baseline";

/**
 * The default largest upload (PERFLAB_UPLOAD_MAX_BYTES): a day of perflab's output at 2,000 calls/s
 * is about 74 MiB, a day of k6's --out json gzipped far more (docs/uploads-and-verdicts.md).
 */
export const UPLOAD_MAX_BYTES = 2 ** 30;

const tooLarge = (maxBytes: number) => () =>
  new AppError("too_large", `The body is larger than the limit of ${maxBytes} bytes.`, [
    { field: "(body)", message: `must be at most ${maxBytes} bytes` },
  ]);

/**
 * Accepts a CI job's k6 output for a worker to ingest: the query is checked here, the body is stored
 * in Postgres as it arrives (never whole in memory), and the run (source api) waits as `ingesting`
 * until the worker has decoded it into its cell, summary and points, or failed it with the reason.
 * Anything that goes wrong before the job is queued (a client gone mid-body included) deletes the
 * run, and its stored body with it.
 */
export async function createUpload({
  db,
  query,
  body,
  origin,
  enqueue,
  declaredBytes,
  maxBytes = UPLOAD_MAX_BYTES,
  caller = null,
}: {
  db: Db;
  /** The token the request authenticated with: the run is recorded as its. */
  caller?: Caller | null;
  /** The query string's parameters, as strings. */
  query: Record<string, string>;
  /** The body (any upload format, plain or gzip), as it arrives, and its declared length (refused at once when too large). */
  body: ReadableStream<Uint8Array> | null;
  declaredBytes?: number;
  /** The largest body taken (PERFLAB_UPLOAD_MAX_BYTES). */
  maxBytes?: number;
  /** Scheme and host the run's URL is built on. */
  origin: string;
  /** Queues the ingest job once the body is stored. */
  enqueue: (job: TIngestJob) => Promise<void>;
}): Promise<TCreatedUpload> {
  if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge(maxBytes)();
  const parsedQuery = ZUploadQueryChecked.safeParse(query);
  if (!parsedQuery.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsedQuery.error));
  }
  const meta = parsedQuery.data;
  if (meta.baselineRunId !== undefined) await assertBaselineExists(db, meta.baselineRunId, "baselineRunId");
  const workspace = caller ? { id: caller.workspaceId } : await ensureDefaultWorkspace(db);
  const spec = pendingUploadSpec(meta);
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      apiTokenId: caller?.tokenId ?? null,
      source: "api",
      status: "ingesting",
      name: spec.name,
      spec: spec as unknown as Prisma.InputJsonValue,
      gitRepo: meta.gitRepo ?? null,
      gitBranch: meta.gitBranch ?? null,
      gitCommit: meta.gitCommit ?? null,
      gitPr: meta.gitPr ? Number(meta.gitPr) : null,
      baselineRunId: meta.baselineRunId ?? null,
      cellsTotal: 1,
      upload: { create: { query } },
    },
    select: { id: true },
  });
  try {
    const bytes = await storeUploadBody(db, run.id, chunksOf(body), {
      maxBytes,
      tooLarge: tooLarge(maxBytes),
    });
    if (bytes === 0) {
      throw new AppError(
        "invalid",
        "The k6 output has no start line: upload the whole file k6 wrote with --out perflab=<file>.",
        [{ field: "(body)", message: "is empty" }],
      );
    }
    await enqueue({ runId: run.id });
  } catch (error) {
    await db.run.deleteMany({ where: { id: run.id } }).catch(() => undefined);
    throw error;
  }
  return { runId: run.id, url: new URL(`/runs/${encodeURIComponent(run.id)}`, origin).toString() };
}

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Refused mid-body (too large): the rest is not read.
    await reader.cancel().catch(() => undefined);
  }
}
