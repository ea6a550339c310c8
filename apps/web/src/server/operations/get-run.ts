import type { Db } from "@perflab/db";
import type { CellDto, RunDto } from "../../lib/dto";
import { AppError } from "../errors";
import { serializeCell, serializeRun } from "../serialize";

/** A run with its cells in execution order and each finished cell's summary. */
export async function getRun({
  db,
  runId,
}: {
  db: Db;
  runId: string;
}): Promise<{ run: RunDto; cells: CellDto[] }> {
  const run = await db.run.findUnique({
    where: { id: runId },
    include: {
      cells: { orderBy: { index: "asc" }, include: { summary: true } },
      apiToken: { select: { id: true, name: true } },
    },
  });
  if (!run) throw new AppError("not_found", `Run "${runId}" does not exist.`);
  const { cells, ...rest } = run;
  return { run: serializeRun(rest), cells: cells.map(serializeCell) };
}

/**
 * The server build each cell of a run recorded (what ran: runtime and its reported version, SDK,
 * image, container settings), by cell id; for the run page's environment table.
 */
export async function getServerBuilds({
  db,
  runId,
}: {
  db: Db;
  runId: string;
}): Promise<Map<string, unknown>> {
  const cells = await db.cell.findMany({ where: { runId }, select: { id: true, serverBuild: true } });
  return new Map(cells.map((cell) => [cell.id, cell.serverBuild ?? null]));
}
