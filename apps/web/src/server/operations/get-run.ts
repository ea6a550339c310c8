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
