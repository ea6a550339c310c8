/**
 * `perflab study` against the real web app: the study's matrix, built from the lab's own servers,
 * is queued as the API takes it — the quick trivial-route on Go alone is Go × 2 load levels, 2 cells
 * — and cancelled at once so it does not keep the suite's worker busy. A server the study does not
 * compare is refused before anything is queued.
 */
import { describe, expect, inject, it } from "vitest";
import { perflab, until } from "./helpers.ts";

type RunDetail = {
  run: { id: string; name: string; status: string; cellsTotal: number; finishedAt: string | null };
  cells: { serverName: string; scenario: string; vus: number | null; status: string }[];
};

const url = (pathname: string) => `${inject("webUrl")}${pathname}`;

describe("perflab study", () => {
  it("queues a study's quick matrix on the servers asked for, as the lab takes it", async () => {
    const queued = await perflab("study", "trivial-route", "--quick", "--no-wait", "--server", "go");
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    expect(runId).toMatch(/^\S+$/);
    expect(queued.stderr).toMatch(/trivial-route --quick: go · 2 cells, about 36 s/);
    try {
      const detail = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as RunDetail;
      expect(detail.run).toMatchObject({
        name: "A trivial HTTP route as connections grow (quick)",
        cellsTotal: 2,
      });
      expect(detail.cells.map((c) => [c.serverName, c.scenario, c.vus])).toEqual([
        ["go", "http-route", 10],
        ["go", "http-route", 100],
      ]);
    } finally {
      const cancelled = await fetch(url(`/api/v1/runs/${runId}/cancel`), { method: "POST" });
      expect(cancelled.status).toBe(202);
      // Wait for the cell the worker may have started to stop, so the next test has the machine.
      await until(
        async () => {
          const detail = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as RunDetail;
          const ended = detail.cells.every((c) => ["succeeded", "failed", "cancelled"].includes(c.status));
          return ended && detail.run.finishedAt ? detail : null;
        },
        60_000,
        "the cancelled study's cells to end",
      );
    }
  });

  it("refuses a server the study does not compare, and an unknown study, before queueing", async () => {
    const before = (await (await fetch(url("/api/v1/runs?limit=1"))).json()) as { runs: { id: string }[] };
    const other = await perflab("study", "trivial-route", "--quick", "--server", "python");
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /--server python: not among trivial-route's servers that this lab has \(node, go\)/,
    );
    const unknown = await perflab("study", "no-such-study");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown study "no-such-study"; the studies: .*trivial-route/);
    const after = (await (await fetch(url("/api/v1/runs?limit=1"))).json()) as { runs: { id: string }[] };
    expect(after.runs[0]?.id).toBe(before.runs[0]?.id);
  });
});
