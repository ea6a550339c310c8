import { needsFixtures, type TStormFigures } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import {
  type CellSummaryData,
  cellSummaryRecord,
  isLoadGeneratorSaturated,
  otherWorkMeasured,
  stormFigures,
} from "@perflab/metrics";
import type { CellContext } from "../cell/context.ts";
import { CellFailure } from "../cell/errors.ts";
import { hostFingerprint } from "../host.ts";
import type { Ingested } from "./ingest.ts";
import type { CellScenario } from "./load.ts";
import type { StartedServer } from "./start.ts";

/**
 * The cell's summary over its measured window, kept only when perflab's count of requests agrees
 * with k6's own, and written only onto a cell still running.
 */
export async function summarise(
  ctx: CellContext,
  scenario: CellScenario,
  started: StartedServer,
  { aggregator, k6Result, serverReadings }: Ingested,
): Promise<void> {
  const { cell, deps } = ctx;
  const summary = aggregator.summary({ durationSec: cell.durationSeconds });
  const k6Requests = k6MeasuredRequests(k6Result.summary);
  if (k6Requests === null) {
    throw new CellFailure(
      "k6's end-of-test summary has no request count for the measured window, so perflab's count could not be checked against it: the result was not kept",
    );
  }
  if (k6Requests !== summary.requests) {
    throw new CellFailure(
      `perflab ingested ${summary.requests} measured requests but k6 counted ${k6Requests}: output was lost, the result was not kept`,
    );
  }
  const saturated = isLoadGeneratorSaturated({
    k6CpuAvgPct: summary.k6CpuAvgPct,
    serverCpuAvgPct: summary.cpuAvgPct,
    hostCpuAvgPct: summary.hostCpuAvgPct,
    cores: (started.running.machine ?? hostFingerprint(deps.env.PERFLAB_HOST_ID)).cores,
    otherWorkMeasured: otherWorkMeasured(cell.driver, needsFixtures(scenario.id, scenario.params)),
  });
  // The drops of the measured window, from the per-second lines, as every other number of the summary.
  const droppedCalls =
    "rate" in scenario.level ? (summary.droppedCalls ?? k6DroppedCalls(k6Result.summary)) : null;
  // A connection storm's per level, from its k6 summary's plan and counts and the server's readings.
  const storm = stormFigures(k6Result.summary, serverReadings);
  const written = await ctx.durable("the summary", () =>
    writeSummary(deps.db, cell.id, { summary, k6Requests, droppedCalls, saturated, storm }),
  );
  if (!written) {
    ctx.log.warn("the cell was ended elsewhere while it ran; its summary was not written");
    throw new CellFailure(
      "the cell was no longer running when its summary was ready (another worker ended it); the summary was not written",
    );
  }
}

/** k6's own count of the measured window, from the submetric its thresholds expose. */
function k6MeasuredRequests(summary: unknown): number | null {
  const data = summary as { metrics?: Record<string, { values?: { count?: number } }> } | null;
  return data?.metrics?.["http_reqs{phase:measure}"]?.values?.count ?? null;
}

/**
 * Calls k6 did not start for want of a free VU over the whole test, warm-up included (0 when it names
 * none): only for a k6 whose output has no per-second count (PERFLAB_K6_BIN or _IMAGE of an older build).
 */
function k6DroppedCalls(summary: unknown): number {
  const data = summary as { metrics?: Record<string, { values?: { count?: number } }> } | null;
  return data?.metrics?.dropped_iterations?.values?.count ?? 0;
}

/**
 * Writes the summary only onto a cell still `running`: one failed meanwhile (another worker saw it
 * stalled) keeps its reason and gets no late result. Returns whether it was written.
 */
async function writeSummary(
  db: Db,
  cellId: string,
  written: {
    summary: CellSummaryData;
    k6Requests: number | null;
    droppedCalls: number | null;
    saturated: boolean;
    storm: TStormFigures | null;
  },
): Promise<boolean> {
  const { k6Requests, droppedCalls, saturated, storm } = written;
  const data = {
    ...cellSummaryRecord(written.summary, k6Requests),
    droppedCalls: droppedCalls === null ? null : BigInt(droppedCalls),
    // Left out when null: the Json column stays SQL NULL (Prisma refuses a plain null there).
    ...(storm === null ? {} : { storm: storm as never }),
  };
  return db.$transaction(async (tx) => {
    // The conditional update locks the row, so the cell cannot end between the check and the write.
    const still = await tx.cell.updateMany({
      where: { id: cellId, status: "running" },
      data: { k6Saturated: saturated },
    });
    if (still.count === 0) return false;
    await tx.cellSummary.upsert({ where: { cellId }, create: { cellId, ...data }, update: data });
    return true;
  });
}
