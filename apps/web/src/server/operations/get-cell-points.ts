import type { Db } from "@perflab/db";
import { ROLLUP_LEVELS, rollUpSeconds, rollupLevelFor } from "@perflab/metrics";
import { downsamplePoints, MAX_POINTS_PER_CELL } from "../../lib/downsample";
import type { PointDto } from "../../lib/dto";
import { serializePoint } from "../serialize";

/**
 * A long cell's series from its rollups: the finest level that fits `limit`, or the coarsest merged
 * further (its histograms merged again, so percentiles stay exact). A cell rolled up before its level
 * existed (the 5 min level came later; the migration step backfills it) reads the next coarser level
 * it has, merged to fit. Null when the cell has none yet (still running, or it ended before rollups
 * existed).
 */
async function fromRollups(
  db: Pick<Db, "metricRollup">,
  cellId: string,
  seconds: number,
  limit: number,
): Promise<PointDto[] | null> {
  const fits = rollupLevelFor(seconds, limit);
  const candidates = ROLLUP_LEVELS.filter((level) => fits === null || level <= fits).reverse();
  for (const level of candidates) {
    const merge = Math.ceil(seconds / level) > limit;
    const rows = await db.metricRollup.findMany({
      where: { cellId, bucketSeconds: level },
      orderBy: { second: "asc" },
      // Histograms only when the buckets are merged again.
      ...(merge ? {} : { omit: { histogram: true } }),
    });
    if (rows.length === 0) continue;
    if (!merge) return rows.map((r) => serializePoint(cellId, r));
    const size = level * Math.ceil(rows.length / limit);
    // Merged buckets count rollups, not seconds: errors per second need the seconds they cover.
    const secondsIn = new Map<number, number>();
    for (const r of rows) {
      const start = Math.floor(r.second / size) * size;
      secondsIn.set(start, (secondsIn.get(start) ?? 0) + r.seconds);
    }
    return rollUpSeconds(rows, [size]).map((r) =>
      serializePoint(cellId, { ...r, seconds: secondsIn.get(r.second) ?? r.seconds }),
    );
  }
  return null;
}

/**
 * The per-second series of the given cells, ordered by time, at most `maxPointsPerCell` each so a
 * long soak never ships its every second to the browser: a longer cell that has ended is read from
 * its rollups (percentiles of merged histograms); one still running is cut to buckets of its worst
 * second until it ends.
 */
export async function getCellPoints({
  db,
  cellIds,
  maxPointsPerCell = MAX_POINTS_PER_CELL,
}: {
  /** The client or a transaction of it. */
  db: Pick<Db, "metricPoint" | "metricRollup">;
  cellIds: string[];
  maxPointsPerCell?: number;
}): Promise<Record<string, PointDto[]>> {
  const result: Record<string, PointDto[]> = Object.fromEntries(cellIds.map((id) => [id, []]));
  if (cellIds.length === 0) return result;
  const counts = await db.metricPoint.groupBy({
    by: ["cellId"],
    where: { cellId: { in: cellIds } },
    _count: { _all: true },
  });
  const raw: string[] = [];
  for (const { cellId, _count } of counts) {
    const rolled =
      _count._all > maxPointsPerCell ? await fromRollups(db, cellId, _count._all, maxPointsPerCell) : null;
    if (rolled) result[cellId] = rolled;
    else raw.push(cellId);
  }
  if (raw.length === 0) return result;
  const rows = await db.metricPoint.findMany({
    where: { cellId: { in: raw } },
    orderBy: [{ cellId: "asc" }, { t: "asc" }],
    // The histogram is the bulk of a row and no chart needs it; the runtime gives heap and GC.
    omit: { histogram: true },
  });
  for (const row of rows) result[row.cellId]?.push(serializePoint(row.cellId, row));
  for (const id of raw) result[id] = downsamplePoints(result[id]!, maxPointsPerCell);
  return result;
}
