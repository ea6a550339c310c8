import type { Db } from "@perflab/db";
import { downsamplePoints, MAX_POINTS_PER_CELL } from "../../lib/downsample";
import type { PointDto } from "../../lib/dto";
import { serializePoint } from "../serialize";

/**
 * The per-second series of the given cells, ordered by time and cut to at most
 * `maxPointsPerCell` each so a long soak never ships its every second to the browser.
 */
export async function getCellPoints({
  db,
  cellIds,
  maxPointsPerCell = MAX_POINTS_PER_CELL,
}: {
  /** The client or a transaction of it. */
  db: Pick<Db, "metricPoint">;
  cellIds: string[];
  maxPointsPerCell?: number;
}): Promise<Record<string, PointDto[]>> {
  const result: Record<string, PointDto[]> = Object.fromEntries(cellIds.map((id) => [id, []]));
  if (cellIds.length === 0) return result;
  const rows = await db.metricPoint.findMany({
    where: { cellId: { in: cellIds } },
    orderBy: [{ cellId: "asc" }, { t: "asc" }],
    // The histogram and runtime columns are the bulk of a row and no chart needs them.
    omit: { histogram: true, runtime: true },
  });
  for (const row of rows) result[row.cellId]?.push(serializePoint(row));
  for (const id of cellIds) result[id] = downsamplePoints(result[id]!, maxPointsPerCell);
  return result;
}
