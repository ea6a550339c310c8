import { fieldErrors, ZUploadQueryChecked } from "@perflab/contracts";
import {
  type Db,
  deleteUploadBody,
  type Prisma,
  readUploadBody,
  upsertMetricPoints,
  writeCellRollups,
} from "@perflab/db";
import { cellSummaryRecord, decodeUploadBody, IngestError, type UploadRecord } from "@perflab/metrics";

/** The insert transaction's time allowance per point, beyond a fixed 2 minutes. */
const TX_MS_PER_POINT = 5;

export type IngestOutcome = { status: "succeeded" | "failed"; error?: string } | { status: "gone" };

/** The run was cancelled or deleted while its output was read: nothing of it is written. */
class RunNotIngesting extends Error {}

/**
 * Reads an upload's stored body line by line into its run, as uploads were stored when the web app
 * read them itself: the cell, its summary over the measured window and its per-second points in one
 * transaction, then the rollups. Output the decoder refuses fails the run with the line or field
 * named and writes no cell. The stored body is deleted either way.
 */
export async function ingestUpload({
  db,
  runId,
  rollupMinSeconds,
}: {
  db: Db;
  runId: string;
  /** Cells with more seconds than this get rollups; default ROLLUP_MIN_SECONDS. */
  rollupMinSeconds?: number;
}): Promise<IngestOutcome> {
  const upload = await db.upload.findUnique({ where: { runId } });
  if (!upload) {
    // A job that came back after its ingest ended (the worker died before completing it).
    const run = await db.run.findUnique({ where: { id: runId }, select: { status: true } });
    if (run?.status !== "ingesting") return { status: "gone" };
    return failRun(db, runId, "internal error: the upload's stored body is gone");
  }
  let record: UploadRecord;
  try {
    record = await decodeUpload(db, runId, upload.query, Number(upload.bytes));
  } catch (error) {
    if (!(error instanceof IngestError)) throw error;
    return failRun(db, runId, error.runError);
  }
  try {
    const cellId = await storeRecord(db, runId, record);
    // A long upload's charts read merged buckets (without them the charts fall back to the seconds,
    // so a failure here loses nothing).
    await writeCellRollups(
      db,
      cellId,
      rollupMinSeconds === undefined ? {} : { minSeconds: rollupMinSeconds },
    ).catch((error: Error) => {
      console.warn(`could not write the rollups of uploaded cell ${cellId}: ${error.message}`);
    });
  } catch (error) {
    if (!(error instanceof RunNotIngesting)) throw error;
    await deleteUploadBody(db, runId);
    return { status: "gone" };
  }
  await deleteUploadBody(db, runId);
  return { status: "succeeded" };
}

/** The stored body through the shared decoders (any format, plain or gzip), checked against the upload's query. */
async function decodeUpload(
  db: Db,
  runId: string,
  query: Prisma.JsonValue,
  bytes: number,
): Promise<UploadRecord> {
  const parsedQuery = ZUploadQueryChecked.safeParse(query);
  if (!parsedQuery.success) {
    const [first] = fieldErrors(parsedQuery.error);
    throw new IngestError("The query string is invalid.", first?.field ?? "(query)", first?.message ?? "");
  }
  return decodeUploadBody(parsedQuery.data, readUploadBody(db, runId), bytes);
}

async function storeRecord(db: Db, runId: string, record: UploadRecord): Promise<string> {
  const { spec, summary, points } = record;
  const meta = spec.scenarios[0]!;
  return db.$transaction(
    async (tx) => {
      const claimed = await tx.run.updateMany({
        where: { id: runId, status: "ingesting" },
        data: {
          status: "succeeded",
          name: record.name,
          spec: spec as unknown as Prisma.InputJsonValue,
          cellsTotal: 1,
          cellsDone: 1,
          cellsFailed: 0,
          startedAt: record.startedAt,
          finishedAt: record.finishedAt,
        },
      });
      if (claimed.count === 0) throw new RunNotIngesting();
      const cell = await tx.cell.create({
        data: {
          runId,
          index: 0,
          serverName: spec.servers[0]!,
          scenario: meta.id,
          loadLevel: record.loadLevel,
          params: record.params as Prisma.InputJsonValue,
          round: 1,
          durationSeconds: spec.durationSec,
          warmupSeconds: spec.warmupSec,
          status: "succeeded",
          driver: spec.driver,
          k6Version: record.k6Version,
          startedAt: record.startedAt,
          measureStartedAt: record.measureStartedAt,
          measureEndedAt: record.measureEndedAt,
          finishedAt: record.finishedAt,
        },
        select: { id: true },
      });
      await tx.cellSummary.create({
        data: {
          cellId: cell.id,
          ...cellSummaryRecord(summary, record.k6Requests),
          droppedCalls: record.droppedCalls === null ? null : BigInt(record.droppedCalls),
        },
      });
      await upsertMetricPoints(tx, cell.id, points, record.loadStartT);
      return cell.id;
    },
    // A day of points is up to 86,400 rows, under 1 ms each on a small machine; the limit grows
    // with the rows instead of failing the longest uploads that the size limit lets in.
    { timeout: 120_000 + points.length * TX_MS_PER_POINT, maxWait: 10_000 },
  );
}

/**
 * Ends an ingesting run as failed, with the reason, and drops its stored body in the same commit: a
 * reader that sees the run failed never finds the body it refused still stored.
 */
export async function failRun(db: Db, runId: string, error: string): Promise<IngestOutcome> {
  const [failed] = await db.$transaction([
    db.run.updateMany({
      where: { id: runId, status: "ingesting" },
      data: { status: "failed", error, cellsTotal: 0, finishedAt: new Date() },
    }),
    db.upload.deleteMany({ where: { runId } }),
  ]);
  return failed.count === 0 ? { status: "gone" } : { status: "failed", error };
}
