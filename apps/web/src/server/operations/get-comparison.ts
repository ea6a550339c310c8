import type { ZRunComparison } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { z } from "zod";
import { compareCells, environmentDifferences, versusFastest } from "../../lib/compare";
import { getRun } from "./get-run";

export type RunComparisonDto = z.infer<typeof ZRunComparison>;

/**
 * A run's comparison as the run page draws it: per workload, server and load level, the rounds'
 * statistics and each against the fastest of its level; what differed between the compared cells;
 * the cells without a result and those not finished yet. For CI that queued a matrix and wants its verdict.
 */
export async function getComparison({ db, runId }: { db: Db; runId: string }): Promise<RunComparisonDto> {
  const { run, cells } = await getRun({ db, runId });
  const comparison = compareCells(cells, run.spec.servers ?? []);
  return {
    runId: run.id,
    servers: comparison.servers,
    workloads: comparison.workloads.map((w) => {
      const versus = new Map(
        w.levels.flatMap((vus) => [...versusFastest(w.groups.filter((g) => g.vus === vus))]),
      );
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
