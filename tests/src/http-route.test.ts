/**
 * The http-route scenario (packages/scenarios/k6/http-route.js), queued through the REST API and run
 * by the real worker, k6 and Go server: plain GETs of a server's REST routes, no MCP. Every request
 * is an operation (one request per op), perflab's count equals k6's own, and the route that reads
 * Postgres runs with the fixtures started (without them the server answers 503, an error here).
 */
import { parse } from "csv-parse/sync";
import { describe, expect, inject, it } from "vitest";
import { api, testDb, waitForRun } from "./helpers.ts";

type Summary = {
  requests: number;
  errors: number;
  ops: number;
  opsRps: number;
  requestsPerOp: number | null;
  droppedCalls: number | null;
  operations: { method: string; tool: string; count: number; errors: number }[];
};
type RunDetail = {
  run: { status: string };
  cells: {
    id: string;
    index: number;
    status: string;
    error: string | null;
    scenario: string;
    params: Record<string, unknown>;
    summary: Summary | null;
  }[];
};

const routes = ["/rest/time", "/rest/users/{id}"] as const;

describe("the http-route scenario", () => {
  it("loads both REST routes, one request per operation, the users route with its fixtures", async () => {
    const created = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: routes.map((route) => ({ id: "http-route", params: { route } })),
        loadLevels: [{ vus: 4 }],
        durationSec: 4,
        warmupSec: 1,
        rounds: 1,
        cooldownSec: 0,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.runId as string;
    await waitForRun(runId, 120_000);
    const { run, cells } = (await api(`/api/v1/runs/${runId}`)).body as unknown as RunDetail;
    expect(cells.map((c) => c.error)).toEqual([null, null]);
    expect(run.status).toBe("succeeded");
    expect(cells.map((c) => c.params)).toEqual(routes.map((route) => ({ route })));

    const db = testDb();
    for (const [i, route] of routes.entries()) {
      const cell = cells.find((c) => c.index === i)!;
      expect(cell.scenario).toBe("http-route");
      expect(cell.status).toBe("succeeded");
      const summary = cell.summary!;
      // k6's own count of the measured window is the worker's check; it is kept beside the summary.
      const stored = await db.cellSummary.findUniqueOrThrow({ where: { cellId: cell.id } });
      expect(stored.k6Requests).not.toBeNull();
      expect(Number(stored.k6Requests)).toBe(summary.requests);
      // Every GET is an operation: no protocol requests around it.
      expect(summary.ops, route).toBeGreaterThan(0);
      expect(summary.ops).toBe(summary.requests);
      expect(summary.requestsPerOp).toBe(1);
      expect(summary.opsRps).toBeGreaterThan(0);
      expect(summary.droppedCalls).toBeNull();
      // Each answer was a 200: /rest/users/{id} found every user, so the fixtures' Postgres was there.
      expect(summary.errors, route).toBe(0);
      expect(summary.operations).toEqual([
        expect.objectContaining({ method: "GET", tool: route, count: summary.requests, errors: 0 }),
      ]);
    }

    // The export gives the route a column of its own.
    const csv = await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cells.csv`);
    expect(csv.status).toBe(200);
    const rows = parse(await csv.text(), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.scenario, r.tool, r.session, r.route])).toEqual(
      routes.map((route) => ["http-route", "", "", route]),
    );
  });

  it("refuses a route that is not the contract's, naming the field and the allowed routes", async () => {
    const before = await testDb().run.count();
    const refused = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: [{ id: "http-route", params: { route: "/rest/users/42" } }],
        loadLevels: [{ vus: 4 }],
        durationSec: 4,
      }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: "scenarios.0.params.route", message: 'must be one of "/rest/time", "/rest/users/{id}"' },
    ]);
    expect(await testDb().run.count()).toBe(before);
  });
});
