import { ROLLUP_LEVELS, type Rollup, rollUpSeconds } from "@perflab/metrics";
import { Prisma } from "./generated/prisma/client.ts";
import type { Db } from "./index.ts";

/**
 * Cells with at most this many seconds keep no rollups: every chart of them (the run page, up to
 * 2,000 points per cell; a report, up to 600) reads their seconds directly.
 */
export const ROLLUP_MIN_SECONDS = 600;

/** Seconds read and merged at a time: a multiple of every level, so no bucket spans two chunks. */
const CHUNK_SECONDS = 3_600;

/** Rows per statement: 20 bind parameters each stay under Postgres' 65,535. */
const ROLLUP_ROWS_PER_STATEMENT = 2_000;

const rollupRow = (r: Rollup, cellId: string) => Prisma.sql`(${cellId}, ${r.bucketSeconds},
  ${r.second}, ${r.t}, ${r.phase}::metric_phase, ${r.seconds}, ${r.requests}, ${r.errors}, ${r.ops}, ${r.rps},
  ${r.latencyP50Ms}, ${r.latencyP90Ms}, ${r.latencyP95Ms}, ${r.latencyP99Ms}, ${r.latencyMaxMs}, ${r.latencyMeanMs},
  ${r.cpuPct}, ${r.rssBytes}, ${r.k6CpuPct}, ${r.histogram})`;

/**
 * Inserts rollups in multi-row statements of plain SQL: Prisma's `createMany` cost over 1 ms a row
 * in its query compiler, more than merging the bucket's histograms.
 */
async function insertRollups(
  tx: Prisma.TransactionClient,
  cellId: string,
  rollups: Rollup[],
): Promise<number> {
  let written = 0;
  for (let i = 0; i < rollups.length; i += ROLLUP_ROWS_PER_STATEMENT) {
    const rows = rollups.slice(i, i + ROLLUP_ROWS_PER_STATEMENT).map((r) => rollupRow(r, cellId));
    written += await tx.$executeRaw`
      INSERT INTO metric_rollups (cell_id, bucket_seconds, second, t, phase, seconds, requests, errors, ops, rps,
        latency_p50_ms, latency_p90_ms, latency_p95_ms, latency_p99_ms, latency_max_ms, latency_mean_ms,
        cpu_pct, rss_bytes, k6_cpu_pct, histogram)
      VALUES ${Prisma.join(rows)}`;
  }
  return written;
}

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
        written += await insertRollups(tx, cellId, rollups);
      }
      return written;
    },
    // A 24-hour cell's 86,400 histograms take tens of seconds to decode and merge.
    { timeout: 600_000, maxWait: 30_000 },
  );
}

/** The coarsest level: a cell rolled up before it existed (levels were added since) lacks it. */
const COARSEST = ROLLUP_LEVELS[ROLLUP_LEVELS.length - 1]!;

/**
 * Ended cells with more than `minSeconds` stored seconds and no rollups of the coarsest level (they
 * ended before rollups existed, writing them failed, or they were rolled up before that level was
 * added): their rollups, all levels rewritten, newest first, at most `limit` cells per call.
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
      AND NOT EXISTS (SELECT 1 FROM metric_rollups r WHERE r.cell_id = c.id AND r.bucket_seconds = ${COARSEST})
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
