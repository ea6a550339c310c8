/**
 * The mcp-request-size scenario (packages/scenarios/k6/mcp-request-size.js), queued through the
 * REST API and run by the real worker and k6 on the Go and Node servers: a 1 MiB echo message,
 * past what an environment variable holds, reaches k6 in a file and the server intact (k6 counts a
 * call whose answer is not the message as failed).
 */
import { describe, expect, it } from "vitest";
import { api, runMatrixOnGoAndNode, testDb } from "./helpers.ts";

const MIB = 1024 * 1024;

type RunDetail = {
  run: { status: string };
  cells: {
    id: string;
    serverName: string;
    error: string | null;
    params: Record<string, unknown>;
    summary: {
      errors: number;
      ops: number;
      latency: { p50: number | null; p99: number | null };
      operations: { method: string; tool: string; count: number; errors: number }[];
    } | null;
  }[];
};

describe("the mcp-request-size scenario", () => {
  it("sends a 1 MiB message that each server echoes intact, about 1 MiB sent per call", async () => {
    const { detail } = await runMatrixOnGoAndNode<RunDetail>(
      { id: "mcp-request-size", params: { messageBytes: MIB } },
      { vus: 2, durationSec: 4, warmupSec: 1 },
    );
    const { run, cells } = detail;
    expect(cells.map((c) => c.error)).toEqual([null, null]);
    expect(run.status).toBe("succeeded");

    for (const cell of cells) {
      const server = cell.serverName;
      expect(cell.params).toEqual({ messageBytes: MIB });
      const summary = cell.summary!;
      // A call counts as failed unless echo answered exactly the message sent.
      expect(summary.errors, server).toBe(0);
      expect(summary.ops, server).toBeGreaterThan(0);
      expect(summary.operations.find((o) => o.method === "tools/call")).toMatchObject({
        tool: "echo",
        count: summary.ops,
        errors: 0,
      });
      expect(summary.latency.p99, server).toBeGreaterThanOrEqual(summary.latency.p50!);
      // The bytes k6 sent in the measured window's seconds, per call: the message and its envelope
      // (a call begun in the warm-up may end in the window's first second, so a little more).
      const stored = await testDb().cellSummary.findUniqueOrThrow({ where: { cellId: cell.id } });
      const perCall = Number(stored.dataSentBytes) / summary.ops;
      expect(perCall, server).toBeGreaterThan(MIB);
      expect(perCall, server).toBeLessThan(1.5 * MIB);
    }
  });

  it("refuses a message larger than echo takes, naming the field", async () => {
    const refused = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: [{ id: "mcp-request-size", params: { messageBytes: MIB + 1 } }],
        loadLevels: [{ vus: 2 }],
        durationSec: 4,
      }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: "scenarios.0.params.messageBytes", message: "must be at most 1048576 (1 MiB)" },
    ]);
  });
});
