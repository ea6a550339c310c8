/**
 * How a cell ends when something other than the measurement goes wrong: every case ends the cell in
 * a terminal state with a reason a user can act on, leaves no process behind, and lets the run go on.
 * The test-only servers (crashes, stubborn, silent) are written by global-setup.ts.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort, repoRoot, type Service, startRedis, startWorker } from "../../scripts/lib/services.ts";
import {
  ownWorkerEnv,
  processesOfCell,
  queueRun,
  startOwnRedis,
  testDb,
  until,
  waitForRun,
} from "./helpers.ts";

/** A failed cell followed by a good one in the same run: the first says why, the second has a result. */
async function expectFailedThenSucceeded(runId: string, cellIds: string[], error: RegExp) {
  const db = testDb();
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const [failed, next] = await Promise.all(
    cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
  );
  expect(failed!.status, failed!.error ?? "").toBe("failed");
  expect(failed!.error).toMatch(error);
  // No result is kept from a load generator that did not finish.
  expect(failed!.summary).toBeNull();
  expect(await processesOfCell(failed!.id)).toEqual([]);
  expect(next!.status, next!.error ?? "").toBe("succeeded");
  expect(next!.summary!.requests).toBeGreaterThan(0n);
  expect(next!.summary!.requests).toBe(next!.summary!.k6Requests);
  expect([run.status, run.cellsDone, run.cellsFailed]).toEqual(["partial", 2, 1]);
}

/** Resolves once the cell has been in its measured window for `ms`. */
async function measuringFor(cellId: string, ms: number) {
  await until(
    async () => {
      const cell = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
      return cell.measureStartedAt !== null && Date.now() > cell.measureStartedAt.getTime() + ms;
    },
    60_000,
    "the cell to measure",
  );
}

const started: Service[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

describe("a cell whose server misbehaves", () => {
  it("fails a cell whose server dies mid-load, stops k6 at once, and runs the next cell", async () => {
    const { runId, cellIds } = await queueRun([
      { serverName: "crashes", vus: 2, durationSeconds: 20, warmupSeconds: 0 },
      { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    ]);
    const run = await waitForRun(runId, 90_000);
    const db = testDb();
    const [crashed, next] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id } })),
    );
    expect(crashed!.status).toBe("failed");
    // timeout(1) sends SIGKILL to its whole process group, itself included.
    expect(crashed!.error).toMatch(/^server exited during the load \(signal SIGKILL\)/);
    expect(crashed!.exitSignal).toBe("SIGKILL");
    // Killed 3 s after start: the cell ended long before its 20 s, so k6 did not go on alone.
    expect(crashed!.finishedAt!.getTime() - crashed!.startedAt!.getTime()).toBeLessThan(15_000);
    expect(await db.cellSummary.count({ where: { cellId: crashed!.id } })).toBe(0);
    expect(next!.status).toBe("succeeded");
    expect(run.status).toBe("partial");
    expect(await processesOfCell(crashed!.id)).toEqual([]);
  });

  it("kills a server that ignores SIGTERM after the grace period, and keeps its measurement", async () => {
    const { runId, cellIds } = await queueRun([
      { serverName: "stubborn", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    ]);
    const run = await waitForRun(runId, 90_000);
    const cell = await testDb().cell.findUniqueOrThrow({
      where: { id: cellIds[0]! },
      include: { summary: true },
    });
    expect([cell.status, cell.error]).toEqual(["succeeded", null]);
    expect(cell.exitSignal).toBe("SIGKILL");
    expect(cell.summary!.requests).toBe(cell.summary!.k6Requests);
    expect(run.status).toBe("succeeded");
    expect(await processesOfCell(cell.id)).toEqual([]);
  });
});

describe("a cell whose load generator fails", () => {
  it("fails a cell whose k6 is killed mid-load, naming k6, and runs the next cell", async () => {
    const { runId, cellIds } = await queueRun([
      { serverName: "go", vus: 2, durationSeconds: 30, warmupSeconds: 0 },
      { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
    ]);
    const db = testDb();
    await measuringFor(cellIds[0]!, 2_000);
    // The pinned k6 itself, killed as the kernel's OOM killer would.
    const pids = await processesOfCell(cellIds[0]!);
    const comms = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/comm`, "utf8")));
    const k6 = pids.filter((_, i) => comms[i]!.trim() === "k6");
    expect(k6).toHaveLength(1);
    const killedAt = Date.now();
    process.kill(k6[0]!, "SIGKILL");

    await waitForRun(runId, 90_000);
    const failed = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    // Ended at once, not when its 30 s were up.
    expect(failed.finishedAt!.getTime() - killedAt).toBeLessThan(15_000);
    expect(failed.exitCode).toBe(0);
    await expectFailedThenSucceeded(runId, cellIds, /^k6 failed \(exit SIGKILL\)/);
  });

  it("fails a cell whose k6 exits non-zero, with k6's own words, and runs the next cell", async () => {
    // The pinned k6, except that the first test it is asked to run gets a VU count the scenario
    // refuses: k6 then ends with a script error (exit 107) before any load.
    const dir = path.join(inject("tmpDir"), "k6-fails-once");
    await mkdir(dir, { recursive: true });
    const bin = path.join(dir, "k6");
    const k6 = path.join(repoRoot, ".perflab/bin/k6");
    await writeFile(
      bin,
      [
        "#!/bin/sh",
        `if [ "$1" = run ] && mkdir '${dir}/failed-once' 2>/dev/null; then VUS=0 exec '${k6}' "$@"; fi`,
        `exec '${k6}' "$@"`,
        "",
      ].join("\n"),
    );
    await chmod(bin, 0o755);
    const redis = await startOwnRedis("k6-fails");
    started.push(redis);
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("k6-fails", { PERFLAB_K6_BIN: bin }),
    });
    started.push(worker);
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );
    await waitForRun(runId, 90_000);
    await expectFailedThenSucceeded(
      runId,
      cellIds,
      /^k6 failed \(exit 107\): .*VUS must be a positive integer.*script exception/,
    );
    // The server was up and is stopped cleanly; k6 never sent a request.
    const failed = await testDb().cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    expect(failed.healthyAt).not.toBeNull();
    expect(failed.exitCode).toBe(0);
    expect(await testDb().metricPoint.count({ where: { cellId: failed.id, requests: { gt: 0 } } })).toBe(0);
    await worker.stop();
  });
});

describe("a worker with a short health timeout and its own queue", () => {
  const env = {
    PERFLAB_SERVERS_DIR: inject("serversDir"),
    PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work-failures"),
    PERFLAB_HOST_ID: "failure-modes",
    PERFLAB_HEALTH_TIMEOUT_MS: "3000",
  };
  let redisUrl = "";

  it("fails a cell whose server never answers MCP within the health timeout, and stops it", async () => {
    const redis = await startRedis({
      dir: path.join(inject("tmpDir"), "redis-failures"),
      port: await freePort(),
    });
    started.push({ name: "redis", stop: () => redis.stop() });
    redisUrl = redis.url;
    const worker = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl, env });
    started.push(worker);
    const { runId, cellIds } = await queueRun(
      [{ serverName: "silent", vus: 1, durationSeconds: 2, warmupSeconds: 0 }],
      {
        redisUrl,
      },
    );
    const run = await waitForRun(runId, 60_000);
    const cell = await testDb().cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    expect(run.status).toBe("failed");
    expect(cell.status).toBe("failed");
    expect(cell.error).toBe("server did not answer an MCP initialize within 3000 ms");
    expect(cell.logTail).toContain("starting");
    expect(await processesOfCell(cell.id)).toEqual([]);
    await worker.stop();
  });

  it("records a cell stopped by the worker's SIGTERM as failed with that reason, and stops its server", async () => {
    const logs: string[] = [];
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl,
      env,
      log: (l) => logs.push(l),
    });
    started.push(worker);
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 2, durationSeconds: 30, warmupSeconds: 0 }],
      {
        redisUrl,
      },
    );
    const db = testDb();
    await measuringFor(cellIds[0]!, 2_000);
    const stopping = Date.now();
    await worker.stop();
    // Graceful: the worker ended the cell itself (no SIGKILL of the worker after 15 s).
    expect(Date.now() - stopping).toBeLessThan(14_000);
    expect(worker.exitReason()).toMatch(/^worker exited \(0\)/);
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    expect(cell.status).toBe("failed");
    expect(cell.error).toBe("the worker was shut down during the cell");
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.status, run.cellsDone]).toEqual(["failed", 1]);
    expect(await processesOfCell(cell.id)).toEqual([]);
  });
});

describe("a worker stopped while its cell's server starts", () => {
  it("ends the cell at once when SIGTERM arrives during the health wait, and stops the server", async () => {
    const redis = await startOwnRedis("health-stop");
    started.push(redis);
    // A health timeout far longer than the worker's grace for SIGTERM (the test's stop gives 15 s).
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("health-stop", { PERFLAB_HEALTH_TIMEOUT_MS: "60000" }),
    });
    started.push(worker);
    const { cellIds } = await queueRun(
      [{ serverName: "silent", vus: 1, durationSeconds: 2, warmupSeconds: 0 }],
      { redisUrl: redis.url },
    );
    const db = testDb();
    // Started (its port is recorded), and it will never answer.
    await until(
      async () => (await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } })).port,
      60_000,
      "the server to start",
    );
    const stopping = Date.now();
    await worker.stop();
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(worker.exitReason()).toMatch(/^worker exited \(0\)/);
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
    expect([cell.status, cell.error]).toEqual(["failed", "the worker was shut down during the cell"]);
    expect(cell.healthyAt).toBeNull();
    expect(await processesOfCell(cell.id)).toEqual([]);
  });
});
