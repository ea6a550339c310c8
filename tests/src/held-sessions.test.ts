/**
 * Sessions held open: the real k6 script opens `sessionsPerVu` MCP sessions in every VU, calls them
 * in turn with a pause between calls, and the run reports the sessions held and what each cost the
 * Go server (mean RSS of the measured window less its idle RSS, per session), in the API, the CSV
 * and the run page.
 */
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, inject, it } from "vitest";
import { queueRun, testDb, waitForRun } from "./helpers.ts";

const runIds: string[] = [];
afterAll(async () => {
  await testDb()
    .run.deleteMany({ where: { id: { in: runIds } } })
    .catch(() => undefined);
});

type Op = { method: string; count: number; errors: number };

describe("a workload that holds sessions", () => {
  it("is refused with the field named when its sessions or pause are out of range", async () => {
    for (const [params, field] of [
      [{ sessionsPerVu: 0 }, "scenarios.0.params.sessionsPerVu"],
      [{ sessionsPerVu: 5, session: "per-call" }, "scenarios.0.params.sessionsPerVu"],
      [{ thinkMs: -5 }, "scenarios.0.params.thinkMs"],
    ] as const) {
      const response = await fetch(`${inject("webUrl")}/api/v1/matrices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          servers: ["go"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", ...params } }],
          loadLevels: [{ vus: 1 }],
          durationSec: 1,
        }),
      });
      const problem = (await response.json()) as { errors?: { field: string }[] };
      expect(response.status, JSON.stringify(params)).toBe(422);
      expect(problem.errors?.map((e) => e.field)).toContain(field);
    }
  });

  it("opens VUs × sessionsPerVu sessions, calls them in turn, and reports the RSS each costs", async () => {
    const VUS = 2;
    const PER_VU = 40;
    const THINK_MS = 100;
    const { runId, cellIds } = await queueRun([
      {
        serverName: "go",
        vus: VUS,
        durationSeconds: 4,
        warmupSeconds: 0,
        params: { sessionsPerVu: PER_VU, thinkMs: THINK_MS },
      },
    ]);
    runIds.push(runId);
    const run = await waitForRun(runId, 120_000);
    const cell = await testDb().cell.findUniqueOrThrow({
      where: { id: cellIds[0]! },
      include: { summary: true },
    });
    expect([run.status, cell.error]).toEqual(["succeeded", null]);

    // Every session was opened once (no warm-up: the handshakes are measured) and none failed;
    // the pause bounds the calls: each VU makes at most one per THINK_MS.
    const ops = cell.summary!.byOperation as Op[];
    const count = (method: string) => ops.find((o) => o.method === method)?.count ?? 0;
    expect(count("initialize")).toBe(VUS * PER_VU);
    expect(count("notifications/initialized")).toBe(VUS * PER_VU);
    expect(ops.every((o) => o.errors === 0)).toBe(true);
    // Each VU calls about once per THINK_MS for the 4 s (less its handshakes and call times).
    const calls = count("tools/call");
    expect(calls).toBeGreaterThanOrEqual(VUS * 10);
    expect(calls).toBeLessThanOrEqual(VUS * Math.ceil(4_000 / THINK_MS));
    expect(Number(cell.summary!.errors)).toBe(0);

    const detail = (await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}`)).json()) as {
      cells: {
        heldSessions: number | null;
        rssPerSessionBytes: number | null;
        idleRssBytes: number | null;
      }[];
    };
    const shown = detail.cells[0]!;
    expect(shown.heldSessions).toBe(VUS * PER_VU);
    expect(shown.idleRssBytes).toBeGreaterThan(0);
    expect(shown.rssPerSessionBytes).toBe(
      Math.round((Number(cell.summary!.rssAvgBytes) - Number(cell.idleRssBytes)) / (VUS * PER_VU)),
    );

    const csv = await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cells.csv`)).text();
    const [row] = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
    expect(row).toMatchObject({
      sessions_per_vu: String(PER_VU),
      think_ms: String(THINK_MS),
      held_sessions: String(VUS * PER_VU),
    });
    expect(Number(row!.rss_per_session_kb) * 1024).toBeCloseTo(shown.rssPerSessionBytes!, 0);

    const page = await (await fetch(`${inject("webUrl")}/runs/${runId}`)).text();
    expect(page).toContain("RSS / session");
    expect(page).toContain(`${PER_VU} sessions per VU`);
  });
});
