/**
 * The open-connection storm: perflab's k6 and k6/connection-storm.js hold SSE streams open on the
 * Go reference server (started as the local driver starts it), while the test reads the server's
 * RSS and open descriptors from /proc; the per-level figures come from @perflab/metrics. Queued as
 * cells on go and node, the worker's own readings give the same figures in each cell's summary.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { TStormFigures } from "@perflab/contracts";
import { levelFootprints, type ProcessReading, type StormSummary, stormLevelCounts } from "@perflab/metrics";
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../scripts/lib/services.ts";
import {
  api,
  expectConforms,
  processesOfCell,
  runMatrixOnGoAndNode,
  startGoServer,
  until,
  waitForRun,
} from "./helpers.ts";

type Started = Awaited<ReturnType<typeof startGoServer>>;
const started: Started[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map(({ server }) => server.stop(2_000)));
});

/** The server's resident bytes and open descriptors, every 250 ms until stopped. */
function watchProcess(pid: number) {
  const readings: ProcessReading[] = [];
  const read = async () => {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    const fds = (await readdir(`/proc/${pid}/fd`).catch(() => [])).length;
    if (Number.isFinite(kb)) readings.push({ atMs: Date.now(), rssBytes: kb * 1024, fds });
  };
  const timer = setInterval(() => void read(), 250);
  void read();
  return { readings, stop: () => clearInterval(timer) };
}

async function runStorm(env: Record<string, string>): Promise<StormSummary> {
  const summaryPath = path.join(await mkdtemp(path.join(tmpdir(), "storm-")), "summary.json");
  await promisify(execFile)(
    path.join(repoRoot, ".perflab/bin/k6"),
    ["run", "--no-usage-report", "--quiet", "packages/scenarios/k6/connection-storm.js"],
    {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...env,
        SUMMARY_PATH: summaryPath,
      },
      timeout: 90_000,
    },
  );
  return JSON.parse(await readFile(summaryPath, "utf8")) as StormSummary;
}

async function goServer(cellId: string) {
  // The marker the worker gives a cell's processes, so processesOfCell finds the server.
  const go = await startGoServer(cellId, { PERFLAB_CELL: cellId });
  started.push(go);
  const [pid] = await processesOfCell(cellId);
  return { ...go, pid: pid! };
}

describe("an open-connection storm on the Go server", () => {
  it("holds 10 then 100 streams: all established, none dropped, each costing RSS and a descriptor", async () => {
    const { baseUrl, mcpPath, pid } = await goServer("storm-levels");
    const watch = watchProcess(pid);
    const summary = await runStorm({
      TARGET: baseUrl,
      MCP_PATH: mcpPath,
      LEVELS: "10,100",
      VUS: "10",
      RAMP: "2",
      // Each level: a 2 s ramp, 4 s held, 1 s to close.
      DURATION: "14",
      WARMUP: "2",
      GAP: "1",
    });
    watch.stop();
    const counts = stormLevelCounts(summary);
    expect(
      counts.map(({ level, established, failed, dropped }) => ({ level, established, failed, dropped })),
    ).toEqual([
      { level: 10, established: 10, failed: 0, dropped: 0 },
      { level: 100, established: 100, failed: 0, dropped: 0 },
    ]);
    // The contract's GET stream sends headers and no event: the response stands for the first one.
    for (const level of counts) {
      expect(level.silent).toBe(level.level);
      expect(level.establishMs?.p99).toBeGreaterThan(0);
      expect(level.firstEventMs?.p99).toBeGreaterThan(0);
    }
    const { idle, levels } = levelFootprints(summary, watch.readings);
    expect(idle).not.toBeNull();
    for (const footprint of levels) {
      expect(footprint.rssPerStreamBytes, `RSS per stream at ${footprint.level}`).toBeGreaterThan(0);
      expect(footprint.fdsAdded, `descriptors at ${footprint.level}`).toBeGreaterThanOrEqual(footprint.level);
    }
  });

  it("counts every stream dropped when the server is killed while they are held", async () => {
    const { baseUrl, mcpPath, pid } = await goServer("storm-killed");
    const idleFds = (await readdir(`/proc/${pid}/fd`)).length;
    const storm = runStorm({
      TARGET: baseUrl,
      MCP_PATH: mcpPath,
      LEVELS: "10",
      VUS: "5",
      RAMP: "1",
      DURATION: "61",
      GAP: "0",
    });
    // Killed once all ten streams are open (the descriptors, streams and pooled handshake
    // connections, no longer change for a second), long before their hold would end.
    const fds = async () => (await readdir(`/proc/${pid}/fd`)).length;
    let last = -1;
    await until(
      async () => {
        const now = await fds();
        const settled = now >= idleFds + 10 && now === last;
        last = now;
        return settled || (await new Promise((resolve) => setTimeout(() => resolve(false), 1_000)));
      },
      30_000,
      "10 open streams",
    );
    process.kill(pid, "SIGKILL");
    const [level] = stormLevelCounts(await storm);
    expect(level).toMatchObject({ level: 10, established: 10, failed: 0, dropped: 10 });
  });

  it("runs as a cell queued through the API: one initialize, notification and DELETE per stream", async () => {
    const created = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        scenarios: [{ id: "connection-storm", params: { levels: [10], rampSec: 1 } }],
        loadLevels: [{ vus: 5 }],
        durationSec: 6,
        warmupSec: 1,
        rounds: 1,
        cooldownSec: 0,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.runId as string;
    await waitForRun(runId, 120_000);
    type Op = { method: string; count: number; errors: number };
    const { run, cells } = (await api(`/api/v1/runs/${runId}`)).body as unknown as {
      run: { status: string };
      cells: { error: string | null; summary: { ops: number; operations: Op[] } | null }[];
    };
    expect([run.status, cells[0]?.error]).toEqual(["succeeded", null]);
    const ops = cells[0]!.summary!.operations;
    for (const method of ["initialize", "notifications/initialized", "DELETE"]) {
      expect(
        ops.find((o) => o.method === method),
        method,
      ).toMatchObject({ count: 10, errors: 0 });
    }
    expect(cells[0]!.summary!.ops).toBe(10);
  });
});

type StormRun = {
  run: { status: string };
  cells: { serverName: string; error: string | null; summary: { storm?: TStormFigures | null } | null }[];
};

describe("a connection-storm cell's figures per level", () => {
  it("has, on go and node, every stream of 10 then 100 held, each a descriptor and some RSS", async () => {
    const { runId, detail } = await runMatrixOnGoAndNode<StormRun>(
      { id: "connection-storm", params: { levels: [10, 100], rampSec: 2 } },
      // 3 idle seconds (the idle reading), then each level ramps 2 s, is held 5 s and closes in 2.
      { vus: 10, durationSec: 18, warmupSec: 3 },
    );
    expect(detail.cells.map((c) => [c.serverName, c.error])).toEqual([
      ["go", null],
      ["node", null],
    ]);
    expect(detail.run.status).toBe("succeeded");
    await expectConforms(detail, "/api/v1/runs/{id}", "get", 200, "application/json");
    for (const cell of detail.cells) {
      const server = cell.serverName;
      const storm = cell.summary?.storm;
      expect(
        storm?.levels.map(({ level, established, failed, dropped }) => ({
          level,
          established,
          failed,
          dropped,
        })),
        server,
      ).toEqual([
        { level: 10, established: 10, failed: 0, dropped: 0 },
        { level: 100, established: 100, failed: 0, dropped: 0 },
      ]);
      expect(storm!.idle?.fds, `${server}: idle descriptors`).toBeGreaterThan(0);
      for (const level of storm!.levels) {
        const at = `${server} at ${level.level}`;
        // One socket a stream in the server at least (handshake connections come on top).
        expect(level.fdsAdded, at).toBeGreaterThanOrEqual(level.established);
        expect(level.fds, at).toBe(storm!.idle!.fds! + level.fdsAdded!);
        expect(level.rssPerStreamBytes, at).toBeGreaterThan(0);
        expect(Number.isFinite(level.rssPerStreamBytes), at).toBe(true);
        expect(level.rssPerStreamBytes, at).toBe(
          Math.round((level.rssBytes! - storm!.idle!.rssBytes) / level.established),
        );
        expect(level.establishMs?.p99, at).toBeGreaterThan(0);
        expect(level.firstEventMs?.p99, at).toBeGreaterThan(0);
      }
    }
    // The CSV export has the same figures, and the run page a row for each cell's level.
    const csv = await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cells.csv`);
    const rows = parse(await csv.text(), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => JSON.parse(r.storm_json!))).toEqual(detail.cells.map((c) => c.summary!.storm));
    const page = await (await fetch(`${inject("webUrl")}/runs/${runId}`)).text();
    expect(page).toContain("Open streams by level");
    expect(page.split('data-testid="storm-level-row"')).toHaveLength(5);
  });
});
