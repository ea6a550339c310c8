import type { Db } from "./index.ts";
import { poolOf } from "./pool.ts";

/** Rows of an upload's body hold about this much: few rows, and little memory on either side. */
export const UPLOAD_CHUNK_BYTES = 2 ** 20;

/**
 * Stores an upload's body as it arrives, in rows of about UPLOAD_CHUNK_BYTES, so neither the web app
 * nor the worker ever holds it whole. Throws `tooLarge()` past `maxBytes`; on any failure (a client
 * that disconnects mid-body included) the caller deletes the run, and its rows go with it.
 * Returns the bytes stored.
 */
export async function storeUploadBody(
  db: Db,
  runId: string,
  body: AsyncIterable<Uint8Array>,
  limit: { maxBytes: number; tooLarge: () => Error },
): Promise<number> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  let seq = 0;
  const pool = poolOf(db);
  const flush = async () => {
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    // Not through Prisma: see poolOf. The row is the same one `uploadChunk` reads.
    await pool.query("INSERT INTO upload_chunks (run_id, seq, data) VALUES ($1, $2, $3)", [
      runId,
      seq++,
      data,
    ]);
  };
  for await (const piece of body) {
    total += piece.byteLength;
    if (total > limit.maxBytes) throw limit.tooLarge();
    pending.push(piece);
    pendingBytes += piece.byteLength;
    if (pendingBytes >= UPLOAD_CHUNK_BYTES) await flush();
  }
  if (pendingBytes > 0) await flush();
  await db.upload.update({ where: { runId }, data: { bytes: BigInt(total) } });
  return total;
}

/** An upload's body in order, one stored row at a time. */
export async function* readUploadBody(db: Db, runId: string): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const row = await db.uploadChunk.findUnique({
      where: { runId_seq: { runId, seq } },
      select: { data: true },
    });
    if (!row) return;
    yield row.data;
  }
}

/** Drops an upload's stored body and query once its run has succeeded or failed. */
export async function deleteUploadBody(db: Db, runId: string): Promise<void> {
  await db.upload.deleteMany({ where: { runId } });
}
