/**
 * Cancelling a run through the REST API, against the real web app, worker, Postgres and Redis: the
 * running cell stops within seconds and is recorded `cancelled`, queued cells never run, and the run
 * stays `cancelled`; a second cancel is a 409, an unknown run a 404.
 */
import { QUEUE_CELLS } from "@perflab/contracts";
import { Queue } from "bullmq";
import { describe, expect, inject, it } from "vitest";
import { processesOfCell, redisConnection, testDb, until } from "./helpers.ts";

type RunDetail = {
  run: { id: string; status: string; cellsDone: number; cellsTotal: number; finishedAt: string | null };
  cells: { id: string; status: string; error: string | null; summary: unknown }[];
};

async function api(path: string, init?: RequestInit) {
  const response = await fetch(`${inject("webUrl")}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("cancelling a run", () => {
  it("stops the running cell, never runs the queued ones, and keeps the run cancelled", async () => {
    const created = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "cancel me",
        servers: ["go"],
        scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
        loadLevels: [{ vus: 2 }],
        rounds: 3,
        durationSec: 30,
        warmupSec: 0,
        cooldownSec: 0,
      }),
    });
    expect(created.status).toBe(201);
    const runId = created.body.runId as string;
    const db = testDb();
    const first = await until(
      async () => {
        const cell = await db.cell.findFirst({ where: { runId, index: 0 } });
        return cell?.measureStartedAt && Date.now() > cell.measureStartedAt.getTime() + 2_000 ? cell : null;
      },
      60_000,
      "the first cell to measure",
    );

    const cancelledAt = Date.now();
    const cancelled = await api(`/api/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(202);
    expect(cancelled.body).toMatchObject({ runningCells: 1, run: { status: "cancelled" } });
    expect((cancelled.body.cancelledCells as string[]).length).toBe(2);

    const detail = await until(
      async () => {
        const { body } = await api(`/api/v1/runs/${runId}`);
        const run = body as unknown as RunDetail;
        const ended = run.cells.every((c) => ["succeeded", "failed", "cancelled"].includes(c.status));
        return ended && run.run.finishedAt ? run : null;
      },
      60_000,
      "every cell to end",
    );
    // The 30 s cell was stopped, not finished.
    expect(Date.now() - cancelledAt).toBeLessThan(15_000);
    expect(detail.run).toMatchObject({ status: "cancelled", cellsDone: 3, cellsTotal: 3 });
    expect(detail.cells.map((c) => [c.status, c.error, c.summary])).toEqual([
      ["cancelled", "cancelled while it ran; the measurement was not kept", null],
      ["cancelled", "cancelled before it ran", null],
      ["cancelled", "cancelled before it ran", null],
    ]);
    // The queued cells' jobs are gone, and nothing of the stopped cell still runs.
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection() });
    for (const id of cancelled.body.cancelledCells as string[])
      expect(await queue.getJob(id)).toBeUndefined();
    await queue.close();
    expect(await processesOfCell(first.id)).toEqual([]);

    const again = await api(`/api/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(
      "The run is already cancelled; only a queued or running run can be cancelled.",
    );
    expect((await api("/api/v1/runs/no-such-run/cancel", { method: "POST" })).status).toBe(404);
  });
});
