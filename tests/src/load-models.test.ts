/**
 * The load models and session modes of the mcp-tool-call scenario, queued through the REST API and
 * run by the real worker, k6 and Go server: an open-model level (k6's constant-arrival-rate) holds
 * its rate and records no dropped call; one whose VU pool cannot keep the rate records the calls k6
 * dropped in its measured window, not those of its warm-up; a session per call costs four HTTP
 * requests per tool call, DELETE included.
 */
import { describe, expect, inject, it } from "vitest";
import { api, testDb, waitForRun } from "./helpers.ts";

type Summary = {
  requests: number;
  ops: number;
  opsRps: number;
  requestsPerOp: number | null;
  droppedCalls: number | null;
  drift: {
    tenthSeconds: number;
    opsRps: { first: number | null; last: number | null };
    p99Ms: { first: number | null; last: number | null };
    rssBytes: { first: number | null; slopePerHour: number | null };
  } | null;
  operations: { method: string; tool: string; count: number; errors: number }[];
};
type RunDetail = {
  run: { status: string; spec: { loadLevels: unknown[] } };
  cells: {
    id: string;
    status: string;
    error: string | null;
    vus: number | null;
    rate: number | null;
    maxVus: number | null;
    params: Record<string, unknown>;
    summary: Summary | null;
  }[];
};

async function queue(body: object): Promise<string> {
  const created = await api("/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ servers: ["go"], rounds: 1, cooldownSec: 0, ...body }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.runId as string;
}

async function finished(runId: string): Promise<RunDetail> {
  await waitForRun(runId, 120_000);
  return (await api(`/api/v1/runs/${runId}`)).body as unknown as RunDetail;
}

const echo = { id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } };

describe("load models and session modes", () => {
  it("keeps an open-model rate, stores the level with its default pool, and drops nothing", async () => {
    const runId = await queue({
      scenarios: [echo],
      loadLevels: [{ rate: 150 }],
      durationSec: 4,
      warmupSec: 1,
    });
    const { run, cells } = await finished(runId);
    const [cell] = cells;
    expect(cell!.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(run.spec.loadLevels).toEqual([{ rate: 150, maxVus: 30 }]);
    expect(cell).toMatchObject({ vus: null, rate: 150, maxVus: 30 });
    const summary = cell!.summary!;
    // 150 calls start every second of the 4-second window, whatever their latency.
    expect(summary.ops).toBeGreaterThanOrEqual(150 * 4 * 0.95);
    expect(summary.ops).toBeLessThanOrEqual(150 * 4 * 1.05);
    expect(summary.opsRps).toBeGreaterThan(140);
    expect(summary.opsRps).toBeLessThan(160);
    expect(summary.droppedCalls).toBe(0);

    const points = await testDb().metricPoint.findMany({
      where: { cellId: cell!.id, phase: "measure" },
      orderBy: { t: "asc" },
    });
    // Whole measured seconds (not the first or last, cut by the window) each start ~150 calls.
    const inner = points.slice(1, -1);
    expect(inner.length).toBeGreaterThanOrEqual(2);
    for (const p of inner) expect(Math.abs(p.ops - 150)).toBeLessThanOrEqual(15);
  });

  it("gives a cell of 20 s and more its drift: the window's last tenth against its first", async () => {
    const runId = await queue({
      scenarios: [echo],
      loadLevels: [{ rate: 100 }],
      durationSec: 20,
      warmupSec: 0,
    });
    const { cells } = await finished(runId);
    const [cell] = cells;
    expect(cell!.error).toBeNull();
    const drift = cell!.summary!.drift!;
    expect(drift.tenthSeconds).toBeCloseTo(1.9, 5);
    // The open model holds 100 calls a second at both ends of the window.
    expect(drift.opsRps.first).toBeGreaterThan(90);
    expect(drift.opsRps.last).toBeGreaterThan(90);
    expect(drift.p99Ms.first).toBeGreaterThan(0);
    expect(drift.p99Ms.last).toBeGreaterThan(0);
    expect(drift.rssBytes.first).toBeGreaterThan(1e6);
    expect(Number.isFinite(drift.rssBytes.slopePerHour)).toBe(true);
    // The CSV carries it too.
    const csv = await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cells.csv`)).text();
    expect(csv.split("\r\n")[0]).toContain("drift_p99_change_pct");
  });

  it("records the calls k6 dropped in the measured window when the VU pool cannot keep the rate", async () => {
    // Two VUs calling sleep(50 ms) finish at most ~40 calls a second: of 100 a second, most are
    // dropped, during the warm-up as after it.
    const runId = await queue({
      scenarios: [{ id: "mcp-tool-call", params: { tool: "sleep", arguments: { ms: 50 } } }],
      loadLevels: [{ rate: 100, maxVus: 2 }],
      durationSec: 4,
      warmupSec: 3,
    });
    const { cells } = await finished(runId);
    const [cell] = cells;
    expect(cell!.error).toBeNull();
    expect(cell!.status).toBe("succeeded");
    const summary = cell!.summary!;
    expect(summary.opsRps).toBeLessThan(45);
    expect(summary.droppedCalls).toBeGreaterThan(200);
    // The calls due in the 4-second window were made or dropped: ~400, plus at most the window's
    // first wall-clock second, which it shares with the warm-up. With the warm-up's drops (~60 a
    // second for 3 s, k6's whole-test count) it would be ~580.
    expect(summary.droppedCalls! + summary.ops).toBeGreaterThan(100 * 4 * 0.9);
    expect(summary.droppedCalls! + summary.ops).toBeLessThanOrEqual(100 * 5);
  });

  it("opens and ends a session for every call when asked: four requests per call, DELETE included", async () => {
    const runId = await queue({
      scenarios: [{ ...echo, params: { ...echo.params, session: "per-call" } }],
      loadLevels: [{ vus: 4 }],
      durationSec: 4,
      warmupSec: 1,
    });
    const { cells } = await finished(runId);
    const [cell] = cells;
    expect(cell!.error).toBeNull();
    expect(cell!.params.session).toBe("per-call");
    const summary = cell!.summary!;
    expect(summary.ops).toBeGreaterThan(50);
    // A VU's iteration in flight at the window's edges may be cut between its requests.
    expect(summary.requestsPerOp).toBeGreaterThan(3.9);
    expect(summary.requestsPerOp).toBeLessThan(4.1);
    const count = (method: string) => summary.operations.find((op) => op.method === method)?.count ?? 0;
    for (const method of ["initialize", "notifications/initialized", "DELETE"]) {
      expect(Math.abs(count(method) - summary.ops), method).toBeLessThanOrEqual(4);
    }
    expect(summary.operations.every((op) => op.errors === 0)).toBe(true);
    expect(summary.droppedCalls).toBeNull();
  });

  it("refuses a level that is both models, naming the field, and writes nothing", async () => {
    const before = await testDb().run.count();
    const refused = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: [echo],
        loadLevels: [
          { vus: 10, rate: 10 },
          { vus: 10, maxVus: 5 },
        ],
        durationSec: 5,
      }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([
        { field: "loadLevels.0.rate", message: "give vus or rate, not both" },
        { field: "loadLevels.1.maxVus", message: "only an open-model level (rate) has maxVus" },
      ]),
    );
    expect(await testDb().run.count()).toBe(before);
  });
});
