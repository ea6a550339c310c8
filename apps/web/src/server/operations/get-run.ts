import type { Db } from "@perflab/db";
import type { CellDto, RunDto } from "../../lib/dto";
import type { ReportCellDto } from "../../lib/report-dto";
import { AppError } from "../errors";
import { serializeCell, serializeReportCell, serializeRun } from "../serialize";
import { runScope } from "./run-scope";

/** A run of another workspace than the reader's is "not found", as one that does not exist. */
async function findRun(db: Db, runId: string, workspaceId: string | null) {
  const run = await db.run.findFirst({
    where: { id: runId, ...runScope(workspaceId) },
    include: {
      cells: { orderBy: { index: "asc" }, include: { summary: true } },
      apiToken: { select: { id: true, name: true } },
    },
  });
  if (!run)
    throw new AppError("not_found", `Run "${runId}" does not exist.`, [
      { field: "id", message: "names no run" },
    ]);
  return run;
}

/** A run with its cells in execution order and each finished cell's summary. */
export async function getRun({
  db,
  runId,
  workspaceId = null,
}: {
  db: Db;
  runId: string;
  /** The reader's workspace in a private lab: a run of another is "not found". */
  workspaceId?: string | null;
}): Promise<{ run: RunDto; cells: CellDto[] }> {
  const { cells, ...rest } = await findRun(db, runId, workspaceId);
  return { run: serializeRun(rest), cells: cells.map(serializeCell) };
}

/**
 * The same run with each cell's server build (runtime and its reported version, SDK, image,
 * container settings), read in the same query: for the run page's environment table.
 */
export async function getRunWithBuilds({
  db,
  runId,
  workspaceId = null,
}: {
  db: Db;
  runId: string;
  workspaceId?: string | null;
}): Promise<{ run: RunDto; cells: ReportCellDto[] }> {
  const { cells, ...rest } = await findRun(db, runId, workspaceId);
  return { run: serializeRun(rest), cells: cells.map(serializeReportCell) };
}
