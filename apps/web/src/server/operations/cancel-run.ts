import { CANCEL_CHANNEL, CANCELLED_BEFORE_RUN, runChannel, type TLiveEvent } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { type RunDto, terminalRunStatuses } from "../../lib/dto";
import { AppError } from "../errors";
import type { CellQueue } from "../queue";
import { serializeRun } from "../serialize";

/**
 * Cancels a run: in one transaction its queued cells end `cancelled` and the run is marked
 * `cancelled`; then their jobs are removed and the workers are told, so a running cell is stopped
 * (its worker records it `cancelled`, unmeasured). Finished cells keep their results.
 */
export async function cancelRun({
  db,
  queue,
  runId,
  workspaceId = null,
}: {
  db: Db;
  queue: CellQueue;
  runId: string;
  /** The caller's workspace in a private lab: a run of another is "not found", as it is to read. */
  workspaceId?: string | null;
}): Promise<{ run: RunDto; cancelledCells: string[]; runningCells: number }> {
  const result = await db.$transaction(async (tx) => {
    // Row lock: a worker finishing the last cell at this moment sees the cancelled status, or we see its end.
    const [locked] = await tx.$queryRaw<
      { status: string; workspace_id: string }[]
    >`SELECT status, workspace_id FROM runs WHERE id = ${runId} FOR UPDATE`;
    if (!locked || (workspaceId && locked.workspace_id !== workspaceId)) {
      throw new AppError("not_found", `Run "${runId}" does not exist.`, [
        { field: "id", message: "names no run" },
      ]);
    }
    if ((terminalRunStatuses as readonly string[]).includes(locked.status)) {
      throw new AppError(
        "conflict",
        `The run is already ${locked.status}; only a queued or running run can be cancelled.`,
        [{ field: "id", message: `names a run that is already ${locked.status}` }],
      );
    }
    const now = new Date();
    // One statement that says which rows it changed: a worker's claim (queued → running) committing
    // between a read of the queued ids and their update would otherwise be counted as cancelled while
    // its cell runs on, and counted again when that cell ends. Under READ COMMITTED an UPDATE that
    // waited for a claim re-checks `status = 'queued'` and skips the claimed row.
    const cancelled = await tx.$queryRaw<{ id: string; index: number }[]>`
      UPDATE cells
         SET status = 'cancelled'::cell_status, error = ${CANCELLED_BEFORE_RUN},
             finished_at = ${now}, updated_at = ${now}
       WHERE run_id = ${runId} AND status = 'queued'::cell_status
      RETURNING id, index`;
    cancelled.sort((a, b) => a.index - b.index);
    const running = await tx.cell.count({ where: { runId, status: "running" } });
    const run = await tx.run.update({
      where: { id: runId },
      data: {
        status: "cancelled",
        error: "cancelled by a user",
        cellsDone: { increment: cancelled.length },
        ...(running === 0 ? { finishedAt: now } : {}),
      },
    });
    return { run, cancelled: cancelled.map((c) => c.id), running };
  });

  // The database is the truth from here on: a job left behind finds its cell cancelled and ends.
  await Promise.all(result.cancelled.map((id) => queue.remove(id).catch(() => 0)));
  try {
    const redis = await queue.client;
    await redis.publish(CANCEL_CHANNEL, JSON.stringify({ runId }));
    const events: TLiveEvent[] = result.cancelled.map((cellId) => ({
      type: "cell",
      cellId,
      status: "cancelled",
      error: CANCELLED_BEFORE_RUN,
    }));
    // With a cell still running the run ends when its worker has stopped it (and says so then).
    if (result.running === 0) {
      events.push({
        type: "run",
        runId,
        status: "cancelled",
        cellsDone: result.run.cellsDone,
        cellsTotal: result.run.cellsTotal,
      });
    }
    for (const event of events) await redis.publish(runChannel(runId), JSON.stringify(event));
  } catch (error) {
    // Redis down: the run is cancelled in Postgres; a worker still running its cell finishes it, and
    // the run stays cancelled.
    console.error(`[cancel-run] could not notify workers of ${runId}:`, error);
  }
  return { run: serializeRun(result.run), cancelledCells: result.cancelled, runningCells: result.running };
}
