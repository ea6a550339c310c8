/**
 * Exports against the real stack: a measured run's comparison and cells.csv carry the numbers the
 * JSON API serves, and a report's cells.csv keeps them after the run is gone.
 */
import { ZRunComparison } from "@perflab/contracts";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { queueRun, testDb, waitForRun } from "./helpers.ts";

const url = (pathname: string) => `${inject("webUrl")}${pathname}`;

type Cell = {
  id: string;
  index: number;
  serverName: string;
  vus: number;
  round: number;
  status: string;
  k6Version: string | null;
  hostFingerprint: { cores?: number; hostId?: string } | null;
  summary: {
    requests: number;
    opsRps: number;
    latency: { p50: number | null; p99: number | null };
    rssPeakBytes: number | null;
    cpuAvgPct: number | null;
  } | null;
};

async function csvOf(pathname: string) {
  const response = await fetch(url(pathname));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const text = await response.text();
  return {
    text,
    disposition: response.headers.get("content-disposition"),
    rows: parse(text, { columns: true }) as Record<string, string>[],
  };
}

let runId: string;

beforeAll(async () => {
  ({ runId } = await queueRun([
    { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
  ]));
  const run = await waitForRun(runId, 120_000);
  expect(run.status).toBe("succeeded");
}, 150_000);

describe("the run's comparison as JSON", () => {
  it("aggregates the cells' summaries per server and load level, in the documented shape", async () => {
    const { cells } = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as { cells: Cell[] };
    const response = await fetch(url(`/api/v1/runs/${runId}/comparison`));
    expect(response.status).toBe(200);
    const body = (await response.json()) as unknown;
    // Exactly the documented shape: parsing drops nothing and adds nothing.
    const comparison = ZRunComparison.parse(body);
    expect(comparison).toEqual(body);
    expect(comparison).toMatchObject({ runId, servers: ["go"], environment: [], missing: [], pending: 0 });
    const [workload] = comparison.workloads;
    expect(comparison.workloads).toHaveLength(1);
    expect(workload).toMatchObject({ scenario: "mcp-tool-call", tool: "echo", levels: [1, 2] });
    for (const cell of cells) {
      const group = workload!.groups.find((g) => g.vus === cell.vus)!;
      expect(group).toMatchObject({
        server: "go",
        rounds: 1,
        opsRps: { n: 1, mean: cell.summary!.opsRps, sd: 0, cv: null, ci95: null },
        p99Ms: { mean: cell.summary!.latency.p99 },
        // Alone at its level, go is the fastest there.
        versusFastest: { ratio: 1, fastest: true, separation: null },
      });
    }
    const unknown = await fetch(url("/api/v1/runs/no-such-run/comparison"));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/application\/problem\+json/);
  });
});

describe("CSV exports", () => {
  it("exports a run's cells with the numbers the API serves, and keeps them in a report after the run is gone", async () => {
    const { cells } = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as { cells: Cell[] };
    expect(cells).toHaveLength(2);

    const exported = await csvOf(`/api/v1/runs/${runId}/cells.csv`);
    expect(exported.disposition).toBe(`attachment; filename="perflab-run-${runId}.csv"`);
    expect(exported.rows).toHaveLength(2);
    for (const [i, cell] of cells.entries()) {
      const row = exported.rows[i]!;
      const s = cell.summary!;
      expect(row).toMatchObject({
        run_id: runId,
        cell_id: cell.id,
        cell_index: String(cell.index),
        server: "go",
        tool: "echo",
        vus: String(cell.vus),
        status: "succeeded",
        driver: "local",
        requests: String(s.requests),
        k6_version: cell.k6Version,
        cores: String(cell.hostFingerprint!.cores),
        runtime: expect.stringMatching(/^go /),
      });
      expect(Number(row.ops_per_s)).toBe(s.opsRps);
      expect(Number(row.latency_p99_ms)).toBe(s.latency.p99);
      expect(Number(row.rss_peak_mb) * 1024 * 1024).toBeCloseTo(s.rssPeakBytes!, 3);
      expect(Number(row.ops_per_cpu_s)).toBeCloseTo(s.opsRps / (s.cpuAvgPct! / 100), 6);
      expect(s.requests).toBeGreaterThan(0);
    }

    const created = (await (
      await fetch(url("/api/v1/reports"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ runId }),
      })
    ).json()) as { slug: string };
    const frozen = await csvOf(`/api/v1/reports/${created.slug}/cells.csv`);
    expect(frozen.disposition).toBe(`attachment; filename="perflab-report-${created.slug}.csv"`);
    expect(frozen.text).toBe(exported.text);
    // The report page offers the same file.
    expect(await (await fetch(url(`/r/${created.slug}`))).text()).toContain(
      `href="/api/v1/reports/${created.slug}/cells.csv"`,
    );

    await testDb().run.delete({ where: { id: runId } });
    expect((await csvOf(`/api/v1/reports/${created.slug}/cells.csv`)).text).toBe(exported.text);
  });

  it("answers 404 problems for an unknown run or report", async () => {
    for (const pathname of [
      "/api/v1/runs/no-such-run/cells.csv",
      "/api/v1/reports/AAAAAAAAAAAAAAAAAAAAAA/cells.csv",
    ]) {
      const response = await fetch(url(pathname));
      expect(response.status, pathname).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(((await response.json()) as { status: number }).status).toBe(404);
    }
  });
});
