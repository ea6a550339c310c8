import { execFileSync, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROLLUP_LEVELS } from "../../packages/metrics/src/index.ts";
import { queueRun, testDb, until, waitForRun } from "./helpers.ts";

describe("a cell on the local driver (real Postgres, Redis, k6 and Go server)", () => {
  it("yields per-second points and a summary whose count equals k6's own count of the measured window", async () => {
    const { runId, cellIds } = await queueRun([
      { serverName: "go", vus: 4, durationSeconds: 5, warmupSeconds: 2 },
    ]);
    const run = await waitForRun(runId, 90_000);
    const db = testDb();
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! }, include: { summary: true } });
    expect(cell.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(cell.status).toBe("succeeded");

    const points = await db.metricPoint.findMany({ where: { cellId: cell.id }, orderBy: { t: "asc" } });
    const measured = points.filter((p) => p.phase === "measure");
    expect(points.length).toBeGreaterThanOrEqual(4);
    expect(measured.length).toBeGreaterThanOrEqual(4);
    expect(points.some((p) => p.phase === "warmup")).toBe(true);
    expect(measured.every((p) => p.requests > 0 && p.latencyP99Ms !== null)).toBe(true);
    expect(measured.some((p) => p.cpuPct !== null && p.rssBytes !== null && p.k6CpuPct !== null)).toBe(true);

    // Rolled up when it ended (the suite's worker rolls up cells of more than 4 seconds): every
    // level covers every second once, with the seconds' requests.
    // The cell's end is written first, its rollups right after.
    const rollups = await until(
      async () => {
        const rows = await db.metricRollup.findMany({ where: { cellId: cell.id } });
        return new Set(rows.map((r) => r.bucketSeconds)).size === ROLLUP_LEVELS.length ? rows : null;
      },
      30_000,
      "the cell's rollups",
    );
    expect(new Set(rollups.map((r) => r.bucketSeconds))).toEqual(new Set(ROLLUP_LEVELS));
    for (const size of ROLLUP_LEVELS) {
      const level = rollups.filter((r) => r.bucketSeconds === size);
      expect(level.reduce((n, r) => n + r.seconds, 0)).toBe(points.length);
      expect(level.reduce((n, r) => n + r.requests, 0)).toBe(points.reduce((n, p) => n + p.requests, 0));
      expect(level.every((r) => r.second % size === 0 && (r.requests === 0 || r.latencyP99Ms !== null))).toBe(
        true,
      );
    }

    const summary = cell.summary!;
    expect(summary.k6Requests).not.toBeNull();
    expect(summary.requests).toBe(summary.k6Requests);
    expect(summary.requests).toBeGreaterThan(0n);
    // Warm-up excluded: the summary counts fewer requests than all points together.
    const all = points.reduce((n, p) => n + p.requests, 0);
    expect(Number(summary.requests)).toBeLessThan(all);
    expect(summary.opsRps).toBeGreaterThan(0);
    expect(summary.latencyP50Ms!).toBeLessThanOrEqual(summary.latencyP99Ms!);
    expect(summary.rssPeakBytes).not.toBeNull();
    // The studies' figures and the Go runtime's GC: each second keeps its longest pause, not the list.
    expect(summary.latencyStddevMs).not.toBeNull();
    expect(summary.timeouts).toBe(0n);
    expect(summary.gcCollectionsPerSec).toBeGreaterThanOrEqual(0);
    expect(summary.gcPauseMaxMs).toBeGreaterThanOrEqual(0);
    // One pause per Go collection: the longest is at least the mean.
    if (summary.gcPauseAvgMs !== null)
      expect(summary.gcPauseMaxMs!).toBeGreaterThanOrEqual(summary.gcPauseAvgMs);
    const runtimes = measured
      .map((p) => p.runtime as Record<string, unknown> | null)
      .filter((r) => r !== null);
    expect(runtimes.length).toBeGreaterThan(0);
    expect(runtimes.every((r) => typeof r.gc_pause_max_ms === "number" && !("gc_pauses_recent" in r))).toBe(
      true,
    );
    expect(cell.coldStartMs).toBeGreaterThan(0);
    expect(Number(cell.idleRssBytes)).toBeGreaterThan(1_000_000);
    expect(cell.exitCode === 0 || cell.exitSignal === "SIGTERM").toBe(true);
    expect(cell.hostFingerprint).toMatchObject({ cores: expect.any(Number) });
    expect(cell.k6Version).toMatch(/k6/);
    // The Go toolchain the binary was built with (the one `go` picks in its folder), as the server
    // itself reported it at start.
    const goVersion = execFileSync("go", ["env", "GOVERSION"], {
      cwd: path.join(import.meta.dirname, "../../servers/go"),
      encoding: "utf8",
    }).trim();
    expect(cell.serverBuild).toMatchObject({
      runtime: expect.stringMatching(/^go /),
      runtimeVersion: goVersion,
    });
  });

  it("flags a cell whose load generator, not the server, was the bottleneck — and not one the server bounded", async () => {
    // Rust's echo costs the server a fraction of what k6 spends per request: at 64 VUs on a small
    // machine k6 takes the cores and sets the ceiling. fibonacci(30) is the reverse: two VUs keep the
    // server busy while k6 idles between answers.
    const { runId, cellIds } = await queueRun([
      { serverName: "rust", vus: 64, durationSeconds: 6, warmupSeconds: 2 },
      { serverName: "go", vus: 2, durationSeconds: 5, warmupSeconds: 1, tool: "fibonacci", args: { n: 30 } },
    ]);
    const run = await waitForRun(runId, 120_000);
    const db = testDb();
    const [k6Bound, serverBound] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(run.status, `${k6Bound!.error} / ${serverBound!.error}`).toBe("succeeded");
    const figures = (c: typeof k6Bound) =>
      `k6 ${c!.summary!.k6CpuAvgPct?.toFixed(0)} %, server ${c!.summary!.cpuAvgPct?.toFixed(0)} %, host ${c!.summary!.hostCpuAvgPct?.toFixed(0)} %`;
    expect(k6Bound!.summary!.k6CpuAvgPct!, figures(k6Bound)).toBeGreaterThan(k6Bound!.summary!.cpuAvgPct!);
    expect(k6Bound!.k6Saturated, figures(k6Bound)).toBe(true);
    expect(serverBound!.summary!.cpuAvgPct!, figures(serverBound)).toBeGreaterThan(
      serverBound!.summary!.k6CpuAvgPct!,
    );
    expect(serverBound!.k6Saturated, figures(serverBound)).toBe(false);
  });

  it("ends a cell whose server dies before it is healthy as failed with the reason and log tail; the run goes on", async () => {
    const { runId, cellIds } = await queueRun([
      { serverName: "broken", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
      { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    ]);
    const run = await waitForRun(runId, 90_000);
    const db = testDb();
    const [broken, good] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id } })),
    );
    expect(broken!.status).toBe("failed");
    expect(broken!.error).toMatch(/exited before it became healthy/);
    expect(broken!.exitCode).toBe(3);
    expect(broken!.logTail).toContain("fatal: config missing");
    expect(good!.status).toBe("succeeded");
    expect(run.status).toBe("partial");
    expect(run.cellsDone).toBe(2);
  });

  it("starts and resets the fixtures for an I/O tool, and counts MCP errors that came back as HTTP 200", async () => {
    const { runId, cellIds } = await queueRun([
      {
        serverName: "go",
        vus: 2,
        durationSeconds: 3,
        warmupSeconds: 0,
        tool: "get_user_cart",
        args: { user_id: 42 },
      },
      { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0, tool: "fibonacci", args: { n: 99 } },
    ]);
    await waitForRun(runId, 90_000);
    const db = testDb();
    const [io, bad] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(io!.error).toBeNull();
    expect(io!.summary!.ops).toBeGreaterThan(0n);
    expect(io!.summary!.errors).toBe(0n);
    // Out of range: every call is a tool error, although each HTTP response is a 200.
    expect(bad!.status).toBe("succeeded");
    expect(bad!.summary!.ops).toBeGreaterThan(0n);
    expect(bad!.summary!.errors).toBe(bad!.summary!.ops);
  });

  it("flags a cell measured beside other work as machine busy, and does not blame k6 for it", async () => {
    // A program spinning on every core while a light cell runs: the machine is full, but not with
    // the server or k6.
    const burners = Array.from({ length: os.availableParallelism() }, () =>
      spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
    );
    try {
      const { runId } = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 4, warmupSeconds: 1 }]);
      const run = await waitForRun(runId, 90_000);
      expect(run.status).toBe("succeeded");
      const detail = (await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}`)).json()) as {
        cells: { machineBusy: boolean; otherCpuPct: number | null; k6Saturated: boolean }[];
      };
      const cell = detail.cells[0]!;
      expect(cell.machineBusy).toBe(true);
      expect(cell.otherCpuPct).toBeGreaterThanOrEqual(25 * os.availableParallelism());
      expect(cell.k6Saturated).toBe(false);
    } finally {
      for (const burner of burners) burner.kill("SIGKILL");
    }
  });
});

describe("server variants (the same build started differently)", () => {
  it("runs go:stateless and node:cluster from the API with their environment, and refuses an unknown variant", async () => {
    const post = (servers: string[]) =>
      fetch(`${inject("webUrl")}/api/v1/matrices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "variants",
          servers,
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "v" } } }],
          loadLevels: [{ vus: 4 }],
          durationSec: 3,
          cooldownSec: 0,
        }),
      });
    const unknown = await post(["go:nope"]);
    expect(unknown.status).toBe(422);
    const problem = (await unknown.json()) as { errors: { field: string; message: string }[] };
    expect(problem.errors).toContainEqual(
      expect.objectContaining({ field: "servers.0", message: expect.stringContaining("go:nope") }),
    );

    const created = await post(["go:stateless", "node:cluster"]);
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    const run = await waitForRun(runId, 120_000);
    const db = testDb();
    const cells = await db.cell.findMany({
      where: { runId },
      orderBy: { index: "asc" },
      include: { summary: true },
    });
    expect(cells.map((c) => [c.serverName, c.status, c.error])).toEqual([
      ["go:stateless", "succeeded", null],
      ["node:cluster", "succeeded", null],
    ]);
    expect(run.status).toBe("succeeded");
    for (const cell of cells) {
      expect(cell.summary!.requests).toBe(cell.summary!.k6Requests);
      expect(cell.summary!.errors).toBe(0n);
      // The server itself says it ran stateless (its /debug/runtime, sampled every second).
      const points = await db.metricPoint.findMany({ where: { cellId: cell.id, phase: "measure" } });
      const runtime = points.map((p) => p.runtime as { mcp?: { stateless?: boolean } } | null).find(Boolean);
      expect(runtime?.mcp?.stateless, cell.serverName).toBe(true);
    }
    expect(cells[0]!.serverBuild).toMatchObject({ variant: "stateless", env: { MCP_STATELESS: "1" } });
    expect(cells[1]!.serverBuild).toMatchObject({
      variant: "cluster",
      env: { MCP_STATELESS: "1", CLUSTER_WORKERS: "auto" },
    });
    // A cluster of one process per CPU: the primary and its workers are all measured.
    expect(cells[1]!.parallelism).toBe(Math.min(2, (cells[1]!.hostFingerprint as { cores: number }).cores));
  });
});
