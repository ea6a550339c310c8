/**
 * The mcp-tool-mix scenario (packages/scenarios/k6/mcp-tool-mix.js), queued through the REST API and
 * run by the real worker and k6 on the Go and Node servers: session lifecycles (initialize →
 * notifications/initialized → tools/list → weighted calls → DELETE) with each tool's calls, errors
 * and percentiles from the merged histograms of one cell.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, inject, it } from "vitest";
import { api, runMatrixOnGoAndNode, testDb } from "./helpers.ts";

type Operation = {
  method: string;
  tool: string;
  count: number;
  errors: number;
  p50: number | null;
  p99: number | null;
};
type RunDetail = {
  run: { status: string };
  cells: {
    serverName: string;
    status: string;
    error: string | null;
    scenario: string;
    params: Record<string, unknown>;
    summary: {
      requests: number;
      errors: number;
      ops: number;
      requestsPerOp: number | null;
      operations: Operation[];
    } | null;
  }[];
};

const CALLS_PER_SESSION = 8;
const mix = [
  { tool: "echo", weight: 3 },
  { tool: "fibonacci", weight: 1 },
];

describe("the mcp-tool-mix scenario", () => {
  it("calls each tool as often as its weight says, in sessions of one initialize, tools/list and DELETE", async () => {
    const { runId, detail } = await runMatrixOnGoAndNode<RunDetail>(
      { id: "mcp-tool-mix", params: { tools: mix, callsPerSession: CALLS_PER_SESSION } },
      { vus: 4, durationSec: 4, warmupSec: 1 },
    );
    const { run, cells } = detail;
    expect(cells.map((c) => c.error)).toEqual([null, null]);
    expect(run.status).toBe("succeeded");

    for (const cell of cells) {
      const server = cell.serverName;
      expect(cell.scenario).toBe("mcp-tool-mix");
      // Stored as run: each tool's default arguments filled in.
      expect(cell.params).toEqual({
        tools: [
          { tool: "echo", arguments: { message: "hello" }, weight: 3 },
          { tool: "fibonacci", arguments: { n: 20 }, weight: 1 },
        ],
        callsPerSession: CALLS_PER_SESSION,
      });
      const summary = cell.summary!;
      expect(summary.errors, server).toBe(0);
      const op = (method: string, tool = "") =>
        summary.operations.find((o) => o.method === method && o.tool === tool);
      const echo = op("tools/call", "echo")!;
      const fibonacci = op("tools/call", "fibonacci")!;
      // Every request of a session carries the phase of its start, so whole sessions are measured.
      const sessions = op("initialize")!.count;
      expect(sessions, server).toBeGreaterThan(4);
      expect(op("notifications/initialized")?.count, server).toBe(sessions);
      expect(op("tools/list")?.count, server).toBe(sessions);
      expect(op("DELETE")?.count, server).toBe(sessions);
      expect(echo.count + fibonacci.count, server).toBe(sessions * CALLS_PER_SESSION);
      // Each VU walks echo, echo, fibonacci, echo from its own place: 3 to 1 give or take a call per VU.
      expect(echo.count / fibonacci.count, server).toBeGreaterThan(2.5);
      expect(echo.count / fibonacci.count, server).toBeLessThan(3.5);
      // Operations are the tool calls, both tools; the protocol's requests count beside them.
      expect(summary.ops).toBe(echo.count + fibonacci.count);
      expect(summary.requestsPerOp).toBeCloseTo((CALLS_PER_SESSION + 4) / CALLS_PER_SESSION, 5);
      for (const o of [echo, fibonacci, op("tools/list")!]) {
        expect(o.errors, `${server} ${o.tool}`).toBe(0);
        expect(o.p50, `${server} ${o.method} ${o.tool}`).toBeGreaterThan(0);
        expect(o.p99, `${server} ${o.method} ${o.tool}`).toBeGreaterThanOrEqual(o.p50!);
      }
    }

    // k6's own count of the measured window matched the worker's (the worker checks it), and the
    // export names the scenario with its mix.
    const stored = await testDb().cellSummary.findMany({ where: { cell: { runId } } });
    expect(stored.map((s) => Number(s.k6Requests) === Number(s.requests))).toEqual([true, true]);
    const csv = await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cells.csv`);
    const rows = parse(await csv.text(), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => r.scenario)).toEqual(["mcp-tool-mix", "mcp-tool-mix"]);
    expect(JSON.parse(rows[0]!.params_json!).tools).toHaveLength(2);
  });

  it("refuses a mix naming a tool twice, naming the field, and queues nothing", async () => {
    const before = await testDb().run.count();
    const refused = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: [{ id: "mcp-tool-mix", params: { tools: [{ tool: "echo" }, { tool: "echo" }] } }],
        loadLevels: [{ vus: 2 }],
        durationSec: 4,
      }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: "scenarios.0.params.tools.1.tool", message: "is in the mix twice: raise its weight" },
    ]);
    expect(await testDb().run.count()).toBe(before);
  });
});
