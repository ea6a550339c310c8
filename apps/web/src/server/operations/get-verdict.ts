import { ZUploadProvenance, type ZVerdict } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { z } from "zod";
import { environmentDifferences, mergeRuns } from "../../lib/compare";
import { judgeRuns } from "../../lib/verdict";
import { AppError } from "../errors";
import { getRunsToCompare } from "./get-runs-to-compare";
import { runScope } from "./run-scope";

export type VerdictDto = z.infer<typeof ZVerdict>;

const unfinished = new Set(["queued", "ingesting", "running"]);

/**
 * A run judged against a baseline run (the one given, else the run's own `baselineRunId`): every
 * server × workload × load level both measured, on throughput, p99 and peak memory, each change
 * beyond the tolerance called a regression or an improvement only when the rounds tell the two
 * apart. Both runs must have finished: a verdict on half a run would change under the reader.
 */
export async function getVerdict({
  db,
  runId,
  baselineRunId,
  tolerancePct,
  workspaceId = null,
}: {
  db: Db;
  runId: string;
  baselineRunId?: string;
  tolerancePct: number;
  /** The reader's workspace in a private lab: either run of another is "not found". */
  workspaceId?: string | null;
}): Promise<VerdictDto> {
  const own = await db.run.findFirst({
    where: { id: runId, ...runScope(workspaceId) },
    select: { baselineRunId: true },
  });
  if (!own)
    throw new AppError("not_found", `No run has the id "${runId}".`, [
      { field: "id", message: "names no run" },
    ]);
  const baselineId = baselineRunId ?? own.baselineRunId;
  if (!baselineId) {
    throw new AppError("invalid", "The run names no baseline: pass one.", [
      { field: "baseline", message: "name the run to judge against (the run has no baselineRunId)" },
    ]);
  }
  if (baselineId === runId) {
    throw new AppError("invalid", "A run cannot be its own baseline.", [
      { field: "baseline", message: "must be another run" },
    ]);
  }
  const { runs, unknown } = await getRunsToCompare({ db, runIds: [baselineId, runId], workspaceId });
  if (unknown.length > 0) {
    throw new AppError("not_found", `No run has the id "${baselineId}".`, [
      { field: "baseline", message: `no run has the id "${baselineId}"` },
    ]);
  }
  const [baseline, candidate] = runs as [(typeof runs)[0], (typeof runs)[0]];
  for (const { run } of runs) {
    if (unfinished.has(run.status)) {
      throw new AppError(
        "conflict",
        `Run "${run.id}" is ${run.status}: a verdict waits until both runs have finished.`,
        [{ field: run.id === runId ? "id" : "baseline", message: `names a run that is ${run.status}` }],
      );
    }
  }
  for (const { run } of runs) refuseK6Summary(run, run.id === runId ? "id" : "baseline");
  const verdict = judgeRuns(baseline.cells, candidate.cells, tolerancePct);
  return {
    runId,
    baselineRunId: baselineId,
    ...verdict,
    environment: environmentDifferences(mergeRuns(runs).cells),
  };
}

/**
 * A run uploaded as a k6 summary holds k6's own percentiles, not a histogram: a p99 judged against
 * another run's would compare figures computed differently, so the verdict refuses it by name.
 */
function refuseK6Summary(run: { id: string; spec: object }, field: "id" | "baseline"): void {
  const upload = ZUploadProvenance.safeParse((run.spec as { upload?: unknown }).upload);
  if (!upload.success || !upload.data.k6Summary) return;
  throw new AppError(
    "invalid",
    `Run "${run.id}" was uploaded as a k6 summary (${upload.data.format}): it holds k6's own percentiles, not a histogram, so a verdict cannot use it. Upload k6's --out json or perflab's output to judge it.`,
    [{ field, message: "names a run uploaded as a k6 summary, which has no histogram to judge" }],
  );
}
