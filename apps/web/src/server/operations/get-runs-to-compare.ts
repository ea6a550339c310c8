import type { Db } from "@perflab/db";
import type { RunToCompare } from "../../lib/compare";
import type { RunDto } from "../../lib/dto";
import { serializeCell, serializeRun } from "../serialize";
import { runScope } from "./run-scope";

/** How many runs one comparison takes: beyond that the bars stop being readable. */
export { MAX_RUNS_TO_COMPARE } from "@perflab/contracts";

export type LoadedRun = RunToCompare & { run: RunDto; branch: string | null };

/**
 * The runs named by `runIds`, in that order, each with its cells and summaries and its git commit
 * and branch; ids that name no run (or, in a private lab, a run of another workspace than the
 * reader's) come back in `unknown`.
 */
export async function getRunsToCompare({
  db,
  runIds,
  workspaceId = null,
}: {
  db: Db;
  runIds: string[];
  workspaceId?: string | null;
}): Promise<{ runs: LoadedRun[]; unknown: string[] }> {
  const rows = await db.run.findMany({
    where: { id: { in: runIds }, ...runScope(workspaceId) },
    include: { cells: { orderBy: { index: "asc" }, include: { summary: true } } },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const runs: LoadedRun[] = [];
  const unknown: string[] = [];
  for (const id of runIds) {
    const row = byId.get(id);
    if (!row) {
      unknown.push(id);
      continue;
    }
    const { cells, ...run } = row;
    runs.push({
      run: serializeRun(run),
      commit: run.gitCommit,
      branch: run.gitBranch,
      cells: cells.map(serializeCell),
    });
  }
  return { runs, unknown };
}
