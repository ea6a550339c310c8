import type { ZRunComparison, ZRunsComparison } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { z } from "zod";
import {
  compareCells,
  environmentDifferences,
  groupsAtLevel,
  mergeRuns,
  versusFastest,
} from "../../lib/compare";
import type { CellDto } from "../../lib/dto";
import { unusableLatency } from "../../lib/unusable-latency";
import { AppError } from "../errors";
import { getRun } from "./get-run";
import { getRunsToCompare } from "./get-runs-to-compare";

export type RunComparisonDto = z.infer<typeof ZRunComparison>;
export type RunsComparisonDto = z.infer<typeof ZRunsComparison>;

/** The comparison the run page draws, as data: rounds' statistics, ratios, environment, gaps. */
function comparisonOf(cells: CellDto[], serverOrder: string[]): Omit<RunComparisonDto, "runId"> {
  const comparison = compareCells(cells, serverOrder);
  return {
    servers: comparison.servers,
    workloads: comparison.workloads.map((w) => {
      const versus = new Map(w.levels.flatMap((level) => [...versusFastest(groupsAtLevel(w.groups, level))]));
      return {
        scenario: w.scenario,
        tool: w.tool,
        params: w.params,
        levels: w.levels,
        groups: w.groups.map((group) => {
          const { serverName, ...stats } = group;
          return { server: serverName, ...stats, versusFastest: versus.get(group)! };
        }),
      };
    }),
    environment: environmentDifferences(cells),
    missing: comparison.missing,
    pending: comparison.pending,
  };
}

/**
 * A run's comparison as the run page draws it: per workload, server and load level, the rounds'
 * statistics and each against the fastest of its level; what differed between the compared cells;
 * the cells without a result and those not finished yet. For CI that queued a matrix and wants its verdict.
 */
export async function getComparison({
  db,
  runId,
  workspaceId = null,
}: {
  db: Db;
  runId: string;
  workspaceId?: string | null;
}): Promise<RunComparisonDto> {
  const { run, cells } = await getRun({ db, runId, workspaceId });
  return { runId: run.id, ...comparisonOf(cells, run.spec.servers ?? []) };
}

/**
 * Several runs compared as one (the /compare page's data): a server measured in each run gets a
 * group per run. An id that names no run is a 404 naming it.
 */
export async function getRunsComparison({
  db,
  runIds,
  workspaceId = null,
}: {
  db: Db;
  runIds: string[];
  workspaceId?: string | null;
}): Promise<RunsComparisonDto> {
  const { runs, unknown } = await getRunsToCompare({ db, runIds, workspaceId });
  if (unknown.length > 0) {
    throw new AppError(
      "not_found",
      `No run has the id ${unknown.map((id) => `"${id}"`).join(", ")}.`,
      unknown.map((id) => ({ field: "runs", message: `no run has the id "${id}"` })),
    );
  }
  const { cells, serverOrder, tags } = mergeRuns(runs);
  return {
    runs: runs.map(({ run, commit }) => ({
      id: run.id,
      name: run.name,
      tag: tags.get(run.id)!,
      commit,
      status: run.status,
      unusable: unusableLatency(run.spec),
    })),
    ...comparisonOf(cells, serverOrder),
  };
}
