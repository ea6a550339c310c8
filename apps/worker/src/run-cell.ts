import { CANCELLED_WHILE_RUNNING, needsFixtures } from "@perflab/contracts";
import type { CellContext, CellDeps } from "./cell/context.ts";
import { CellCancelled, CellFailure } from "./cell/errors.ts";
import type { CellOutcome } from "./cell/finish.ts";
import { claimCell } from "./stages/claim.ts";
import { checkHealth } from "./stages/health-check.ts";
import { ingestLoad } from "./stages/ingest.ts";
import { cellScenario, startLoad } from "./stages/load.ts";
import { placeCell } from "./stages/place.ts";
import { endCell, releaseServer } from "./stages/release.ts";
import { resetFixtures } from "./stages/reset-fixtures.ts";
import { ServerTracker, startServer } from "./stages/start.ts";
import { summarise } from "./stages/summarise.ts";

export type { CellDeps } from "./cell/context.ts";
export { CellCancelled, CellNotStarted } from "./cell/errors.ts";
export { type CellOutcome, finishCell, publish } from "./cell/finish.ts";

/**
 * Runs one cell end to end: claim → place → fixtures → start → health → load → ingest → summarise →
 * release (stop the server, end the cell, rollups, cooldown). Every outcome ends the cell in a
 * terminal state with its reason.
 */
export async function runCell(
  deps: CellDeps,
  input: { cellId: string; signal?: AbortSignal },
): Promise<void> {
  const ctx = await claimCell(deps, input);
  if (!ctx) return;
  const tracker = new ServerTracker();
  const measured = await measure(ctx, tracker);
  const outcome = await releaseServer(ctx, tracker, measured);
  await endCell(ctx, outcome);
}

/** The stages that measure the claimed cell; any failure becomes the cell's outcome, with its reason. */
async function measure(
  ctx: CellContext,
  tracker: ServerTracker,
): Promise<{ outcome: CellOutcome; summaryWritten: boolean }> {
  try {
    const placed = await placeCell(ctx);
    const scenario = cellScenario(ctx.cell);
    const backends = await resetFixtures(
      ctx,
      placed.placement.fixtures,
      needsFixtures(scenario.id, scenario.params),
    );
    const started = await startServer(ctx, placed, backends, tracker);
    const watch = await checkHealth(ctx, placed, started);
    const load = await startLoad(ctx, placed, started, scenario);
    const ingested = await ingestLoad(ctx, scenario, started, watch, load);
    await summarise(ctx, scenario, started, ingested);
    return { outcome: { status: "succeeded" }, summaryWritten: true };
  } catch (error) {
    const reason =
      error instanceof CellFailure ? error.message : `internal error: ${(error as Error).message}`;
    if (!(error instanceof CellFailure)) ctx.log.error({ err: error }, "cell failed unexpectedly");
    const outcome: CellOutcome =
      ctx.signal?.reason instanceof CellCancelled
        ? { status: "cancelled", error: CANCELLED_WHILE_RUNNING }
        : { status: "failed", error: reason };
    return { outcome, summaryWritten: false };
  }
}
