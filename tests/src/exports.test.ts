/**
 * Exports against the real stack: a measured run's comparison and cells.csv carry the numbers the
 * JSON API serves, and a report's cells.csv keeps them after the run is gone.
 */
import { ZRunComparison, ZRunsComparison } from "@perflab/contracts";
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
    rows: parse(text, { columns: true, bom: true }) as Record<string, string>[],
  };
}

let runId: string;
/** A second run, of go at one VU only: the baseline a CI job would compare against. */
let baselineId: string;

beforeAll(async () => {
  ({ runId: baselineId } = await queueRun([
    { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
  ]));
  ({ runId } = await queueRun([
    { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
  ]));
  for (const id of [baselineId, runId]) expect((await waitForRun(id, 120_000)).status).toBe("succeeded");
}, 200_000);

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
    expect(workload).toMatchObject({
      scenario: "mcp-tool-call",
      tool: "echo",
      levels: [
        { vus: 1, rate: null },
        { vus: 2, rate: null },
      ],
    });
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

describe("runs compared as one", () => {
  it("gives a group per server and run, labelled by run, in the documented shape", async () => {
    const response = await fetch(url(`/api/v1/comparison?runs=${baselineId},${runId}`));
    expect(response.status).toBe(200);
    const body = (await response.json()) as unknown;
    // The parameter may also repeat, as the /compare page accepts it.
    const repeated = await fetch(url(`/api/v1/comparison?runs=${baselineId}&runs=${runId}`));
    expect(await repeated.json()).toEqual(body);
    const comparison = ZRunsComparison.parse(body);
    expect(comparison).toEqual(body);
    // Both runs are named "integration": each tag adds what tells them apart, their load levels.
    const tags = ["integration (1 VU)", "integration (1, 2 VUs)"];
    expect(comparison.runs.map((r) => [r.id, r.tag, r.status])).toEqual([
      [baselineId, tags[0], "succeeded"],
      [runId, tags[1], "succeeded"],
    ]);
    expect(comparison.servers).toEqual(tags.map((t) => `go · ${t}`));
    const groups = comparison.workloads[0]!.groups;
    expect(groups.map((g) => `${g.vus} ${g.server}`)).toEqual([
      `1 go · ${tags[0]}`,
      `1 go · ${tags[1]}`,
      `2 go · ${tags[1]}`,
    ]);
    // Each run's own figures, one round each.
    const single = ZRunComparison.parse(await (await fetch(url(`/api/v1/runs/${runId}/comparison`))).json());
    expect(groups.at(-1)!.opsRps).toEqual(single.workloads[0]!.groups.find((g) => g.vus === 2)!.opsRps);
    expect(groups.filter((g) => g.vus === 1 && g.versusFastest.fastest)).toHaveLength(1);
  });

  it("refuses fewer than two or more than eight runs (422) and unknown ids (404), naming `runs`", async () => {
    const problem = async (query: string, status: number) => {
      const response = await fetch(url(`/api/v1/comparison${query}`));
      expect(response.status, query).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
      return (await response.json()) as { errors: { field: string; message: string }[] };
    };
    expect((await problem("", 422)).errors[0]!.field).toBe("runs");
    expect((await problem(`?runs=${runId},${runId}`, 422)).errors).toEqual([
      { field: "runs", message: "name at least two runs" },
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => `run-${i}`).join(",");
    expect((await problem(`?runs=${nine}`, 422)).errors[0]!.message).toBe("name at most 8 runs");
    expect((await problem(`?runs=${runId},no-such-run`, 404)).errors).toEqual([
      { field: "runs", message: 'no run has the id "no-such-run"' },
    ]);
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
