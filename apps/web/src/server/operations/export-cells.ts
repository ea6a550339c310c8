import type { Db } from "@perflab/db";
import type { Caller } from "../auth";
import { cellsCsv } from "../cells-csv";
import { AppError } from "../errors";
import { serializeReportCell } from "../serialize";
import { getReport } from "./get-report";
import { runScope } from "./run-scope";

/** A run's cells as CSV, as they stand now (a running run's unfinished cells have no summary yet). */
export async function exportRunCsv({
  db,
  runId,
  workspaceId = null,
}: {
  db: Db;
  runId: string;
  workspaceId?: string | null;
}): Promise<string> {
  const run = await db.run.findFirst({
    where: { id: runId, ...runScope(workspaceId) },
    select: { id: true, cells: { orderBy: { index: "asc" }, include: { summary: true } } },
  });
  if (!run)
    throw new AppError("not_found", `Run "${runId}" does not exist.`, [
      { field: "id", message: "names no run" },
    ]);
  return cellsCsv(run.id, run.cells.map(serializeReportCell));
}

/** A report's cells as CSV, from its frozen snapshot: the same rows whatever became of the run. */
export async function exportReportCsv({
  db,
  slug,
  caller = null,
}: {
  db: Db;
  slug: string;
  caller?: Caller | null;
}): Promise<string> {
  const report = await getReport({ db, slug, caller });
  return cellsCsv(report.snapshot.run.id, report.snapshot.cells);
}
