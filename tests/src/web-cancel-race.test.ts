/**
 * Cancelling a run while a worker claims one of its queued cells. The claim (queued → running) does
 * not lock the run row, so it can commit while the cancel runs: the cancel must count and report
 * only the cells it really changed, or the claimed cell is listed as cancelled while it runs and
 * the run's cellsDone passes cellsTotal when that cell ends. The race is made deterministic by
 * holding the claim's row lock until the cancel waits on it.
 */
import { CANCELLED_BEFORE_RUN } from "@perflab/contracts";
import { afterAll, describe, expect, inject, it } from "vitest";
import { queueRun, testDb, until } from "./helpers.ts";

type Cancelled = {
  run: { status: string; cellsDone: number; cellsTotal: number; finishedAt: string | null };
  cancelledCells: string[];
  runningCells: number;
};

const created: string[] = [];
afterAll(async () => {
  // The claimed cell never really runs: nothing would end it, so the run goes.
  await testDb().run.deleteMany({ where: { id: { in: created } } });
});

async function cancel(runId: string): Promise<{ status: number; body: Cancelled }> {
  const response = await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cancel`, { method: "POST" });
  return { status: response.status, body: (await response.json()) as Cancelled };
}

const threeQueuedCells = () =>
  queueRun(
    [0, 1, 2].map(() => ({ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 })),
    { enqueue: false },
  );

describe("cancelling a run while a worker claims a cell", () => {
  it("cancels and counts only the cells still queued when its update ran", async () => {
    const { runId, cellIds } = await threeQueuedCells();
    created.push(runId);
    const db = testDb();

    let response: Promise<{ status: number; body: Cancelled }> | undefined;
    await db.$transaction(
      async (tx) => {
        // The worker's claim of the first cell, not committed yet.
        const claimed = await tx.$executeRaw`
          UPDATE cells SET status = 'running'::cell_status, started_at = now(), attempts = attempts + 1
           WHERE id = ${cellIds[0]!} AND status = 'queued'::cell_status`;
        expect(claimed).toBe(1);
        response = cancel(runId);
        // The cancel has read the run (and, before the fix, the queued ids) and now waits for the
        // claimed row; the claim commits when this callback returns.
        await until(
          async () => {
            const rows = await db.$queryRaw<{ n: bigint }[]>`
              SELECT count(*) AS n FROM pg_stat_activity
               WHERE wait_event_type = 'Lock' AND query ILIKE '%update%cells%'`;
            return Number(rows[0]?.n ?? 0) > 0;
          },
          20_000,
          "the cancel to wait on the claimed cell's row lock",
        );
      },
      { timeout: 30_000 },
    );

    const { status, body } = await response!;
    expect(status).toBe(202);
    expect(body.cancelledCells).toEqual([cellIds[1], cellIds[2]]);
    expect(body.runningCells).toBe(1);
    expect(body.run).toMatchObject({ status: "cancelled", cellsDone: 2, cellsTotal: 3, finishedAt: null });

    const cells = await db.cell.findMany({ where: { runId }, orderBy: { index: "asc" } });
    expect(cells.map((c) => [c.status, c.error, c.finishedAt === null])).toEqual([
      ["running", null, true],
      ["cancelled", CANCELLED_BEFORE_RUN, false],
      ["cancelled", CANCELLED_BEFORE_RUN, false],
    ]);
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    // cellsDone counts exactly the cells that ended: the claimed cell adds itself when it finishes.
    expect(run.cellsDone).toBe(cells.filter((c) => c.status === "cancelled").length);
    expect(run.finishedAt).toBeNull();
  });

  it("without a race: every queued cell is cancelled, counted once, and the run is finished", async () => {
    const { runId, cellIds } = await threeQueuedCells();
    created.push(runId);
    const before = Date.now();
    const { status, body } = await cancel(runId);
    expect(status).toBe(202);
    expect(body.cancelledCells).toEqual(cellIds);
    expect(body.runningCells).toBe(0);
    expect(body.run).toMatchObject({ status: "cancelled", cellsDone: 3, cellsTotal: 3 });
    expect(body.run.finishedAt).not.toBeNull();
    const cells = await testDb().cell.findMany({ where: { runId } });
    for (const cell of cells) {
      expect(cell.status).toBe("cancelled");
      // The raw update keeps what Prisma's @updatedAt would have written.
      expect(cell.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    }
  });
});
