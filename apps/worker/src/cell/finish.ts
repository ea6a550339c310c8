import { runChannel, type TLiveEvent } from "@perflab/contracts";
import type { RunStatus } from "@perflab/db";
import { addRoundIfUndecided, enqueueRound } from "./adaptive.ts";
import type { CellDeps } from "./context.ts";

export type CellOutcome = { status: "succeeded" | "failed" | "cancelled"; error?: string };

export async function publish(deps: Pick<CellDeps, "publisher" | "log">, runId: string, event: TLiveEvent) {
  await deps.publisher.publish(runChannel(runId), JSON.stringify(event)).catch((error) => {
    deps.log.warn({ err: error }, "live publish failed");
  });
}

/**
 * Moves a running cell to its terminal state and counts it on the run exactly once; the run ends
 * (succeeded, failed or partial) with its last cell, unless its adaptive rounds need another round.
 */
export async function finishCell(
  deps: Pick<CellDeps, "db" | "publisher" | "log">,
  cellId: string,
  runId: string,
  outcome: CellOutcome,
): Promise<void> {
  const { db } = deps;
  let nextRound: string[] = [];
  const run = await db.$transaction(async (tx) => {
    const moved = await tx.cell.updateMany({
      where: { id: cellId, status: { in: ["queued", "running"] } },
      data: { status: outcome.status, error: outcome.error ?? null, finishedAt: new Date() },
    });
    if (moved.count === 0) return "unmoved" as const;
    // Only a succeeded cell has a result. A summary is written before the server is stopped, so a
    // cell that fails after it (an exit or OOM kill seen at the stop, a worker killed in between and
    // its cell failed by the next one) must not keep numbers beside its "failed".
    if (outcome.status !== "succeeded") await tx.cellSummary.deleteMany({ where: { cellId } });
    const updated = await tx.run.update({
      where: { id: runId },
      data: { cellsDone: { increment: 1 }, cellsFailed: { increment: outcome.status === "failed" ? 1 : 0 } },
    });
    if (updated.cellsDone < updated.cellsTotal) return updated;
    // Cancelled by a user while this cell ran: the run stays cancelled and ends now.
    if (updated.status === "cancelled") {
      return tx.run.update({ where: { id: runId }, data: { finishedAt: new Date() } });
    }
    // Adaptive rounds: the rule's decision is stored, and an undecided run gets another round.
    const going = await addRoundIfUndecided(tx, updated);
    nextRound = going?.cellIds ?? [];
    if (going) return going.run;
    const status =
      updated.cellsFailed === 0
        ? "succeeded"
        : updated.cellsFailed === updated.cellsTotal
          ? "failed"
          : "partial";
    return tx.run.update({ where: { id: runId }, data: { status, finishedAt: new Date() } });
  });
  // A cell already ended (by someone else, or by this very call when a retry follows a commit
  // whose acknowledgement was lost) keeps its status and reason; the live view gets them as stored.
  if (run === "unmoved") {
    deps.log.info({ cellId, outcome }, "the cell had already ended; its state was left as it was");
    const [cell, current] = await Promise.all([
      db.cell.findUnique({ where: { id: cellId }, select: { status: true, error: true } }),
      db.run.findUnique({ where: { id: runId } }),
    ]);
    if (!cell || !current) return;
    await publish(deps, runId, { type: "cell", cellId, status: cell.status, error: cell.error });
    await publish(deps, runId, runEvent(current));
    return;
  }
  await enqueueRound(deps, runId, nextRound);
  await publish(deps, runId, { type: "cell", cellId, status: outcome.status, error: outcome.error ?? null });
  await publish(deps, runId, runEvent(run));
}

const runEvent = (run: { id: string; status: RunStatus; cellsDone: number; cellsTotal: number }) => ({
  type: "run" as const,
  runId: run.id,
  status: run.status,
  cellsDone: run.cellsDone,
  cellsTotal: run.cellsTotal,
});
