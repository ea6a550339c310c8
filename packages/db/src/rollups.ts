import { ROLLUP_LEVELS, rollUpSeconds } from "@perflab/metrics";
import type { Db } from "./index.ts";

/**
 * Cells with at most this many seconds keep no rollups: every chart of them (the run page, up to
 * 2,000 points per cell; a report, up to 600) reads their seconds directly.
 */
export const ROLLUP_MIN_SECONDS = 600;

/** Seconds read and merged at a time: a multiple of every level, so no bucket spans two chunks. */
const CHUNK_SECONDS = 3_600;

/**
 * (Re)writes a cell's rollups from its stored seconds, all levels in one transaction, so a reader
 * sees every level or none (and then falls back to the seconds). Returns the rows written; a cell of
 * `minSeconds` seconds or fewer gets none.
 */
export async function writeCellRollups(
  db: Db,
  cellId: string,
  { minSeconds = ROLLUP_MIN_SECONDS }: { minSeconds?: number } = {},
): Promise<number> {
  const range = await db.metricPoint.aggregate({
    where: { cellId },
    _count: true,
    _min: { second: true },
    _max: { second: true },
  });
  if (range._count <= minSeconds || range._min.second === null || range._max.second === null) return 0;
  const first = Math.floor(range._min.second / CHUNK_SECONDS) * CHUNK_SECONDS;
  const last = range._max.second;
  return db.$transaction(
    async (tx) => {
      await tx.metricRollup.deleteMany({ where: { cellId } });
      let written = 0;
      for (let from = first; from <= last; from += CHUNK_SECONDS) {
        const seconds = await tx.metricPoint.findMany({
          where: { cellId, second: { gte: from, lt: from + CHUNK_SECONDS } },
          orderBy: { second: "asc" },
          omit: { runtime: true, cellId: true, netRxBytes: true, netTxBytes: true },
        });
        if (seconds.length === 0) continue;
        const rollups = rollUpSeconds(seconds, ROLLUP_LEVELS);
        const { count } = await tx.metricRollup.createMany({
          data: rollups.map((r) => ({ ...r, cellId })),
        });
        written += count;
      }
      return written;
    },
    // A 24-hour cell's 86,400 histograms take tens of seconds to decode and merge.
    { timeout: 600_000, maxWait: 30_000 },
  );
}

/**
 * Ended cells with more than `minSeconds` stored seconds and no rollups (they ended before rollups
 * existed, or writing them failed): their rollups, newest first, at most `limit` cells per call.
 * Run where no cell is measured (the migration step, the quick start before its worker): a 24-hour
 * cell takes tens of seconds of CPU. A cell that fails is named in `failed` and the rest go on.
 */
export async function backfillRollups(
  db: Db,
  { minSeconds = ROLLUP_MIN_SECONDS, limit = 20 }: { minSeconds?: number; limit?: number } = {},
): Promise<{ rolledUp: number; failed: { cellId: string; error: string }[] }> {
  // The planned length first (cheap), then "more than minSeconds stored seconds" as writeCellRollups
  // counts them, stopping at the first row past that count.
  const cells = await db.$queryRaw<{ id: string }[]>`
    SELECT c.id FROM cells c
    WHERE c.status IN ('succeeded', 'failed', 'cancelled')
      AND c.duration_seconds + c.warmup_seconds > ${minSeconds}
      AND NOT EXISTS (SELECT 1 FROM metric_rollups r WHERE r.cell_id = c.id)
      AND EXISTS (SELECT 1 FROM metric_points p WHERE p.cell_id = c.id OFFSET ${minSeconds} LIMIT 1)
    ORDER BY c.finished_at DESC NULLS LAST
    LIMIT ${limit}`;
  let rolledUp = 0;
  const failed: { cellId: string; error: string }[] = [];
  for (const { id } of cells) {
    try {
      if ((await writeCellRollups(db, id, { minSeconds })) > 0) rolledUp++;
    } catch (error) {
      failed.push({ cellId: id, error: (error as Error).message });
    }
  }
  return { rolledUp, failed };
}
