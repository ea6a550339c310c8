import { readFile } from "node:fs/promises";
import {
  createDockerDriver,
  LABEL_CELL,
  LABEL_OWNER,
  ORPHANED_CELL,
  processStartTime,
} from "@perflab/worker/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type Service, startWorker } from "../../scripts/lib/services.ts";
import {
  ownWorkerEnv,
  processesOfCell,
  queueRun,
  startOwnRedis,
  testDb,
  until,
  waitForRun,
} from "./helpers.ts";

// Each test's own Redis and workers stop with it, so the next test's load runs alone.
const started: Service[] = [];
// Processes of cells a test killed the worker of, removed even when the test failed before its checks.
const victims: string[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
  for (const cellId of victims.splice(0)) {
    for (const pid of await processesOfCell(cellId)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
});

/**
 * A host id of the test's own: workers of other test runs on this machine (same hostname) would
 * otherwise remove this test's orphans before the worker under test could.
 */
const ownHostId = (name: string) => `${name}-${process.pid}`;

describe("a worker killed mid-cell", () => {
  it("leaves no processes behind after a restart, the cell says why it failed, and the run goes on", async () => {
    // Its own Redis, so the suite's worker cannot pick these jobs up.
    const redis = await startOwnRedis("crash");
    started.push(redis);
    const env = ownWorkerEnv("crash", { PERFLAB_HOST_ID: ownHostId("crash") });
    const first = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(first);

    const db = testDb();
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 60, warmupSeconds: 0 },
        { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );
    const [victim, next] = cellIds.map((id) => ({ id }));
    victims.push(victim!.id);

    // Wait until the load is running: server and k6 both up.
    await until(
      async () => (await db.cell.findUniqueOrThrow({ where: { id: victim!.id } })).measureStartedAt,
      60_000,
      "the load to start",
    );
    const orphans = await until(
      async () => {
        const pids = await processesOfCell(victim!.id);
        return pids.length >= 2 ? pids : null;
      },
      10_000,
      "server and k6 processes",
    );
    first.child.kill("SIGKILL");
    await until(async () => first.exitReason(), 10_000, "the worker to die");
    expect((await processesOfCell(victim!.id)).length).toBeGreaterThan(0);

    const second = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(second);
    const finished = await waitForRun(runId, 120_000);

    const victimAfter = await db.cell.findUniqueOrThrow({ where: { id: victim!.id } });
    expect(victimAfter.status).toBe("failed");
    expect(victimAfter.error).toMatch(/worker/);
    expect(await processesOfCell(victim!.id)).toEqual([]);
    for (const pid of orphans) expect(await readFile(`/proc/${pid}/stat`).catch(() => null)).toBeNull();

    const nextAfter = await db.cell.findUniqueOrThrow({ where: { id: next!.id } });
    expect(nextAfter.status).toBe("succeeded");
    expect(finished.status).toBe("partial");
    expect(finished.cellsDone).toBe(2);
  });

  it("on the docker driver: no container remains after a restart, the cell says why it failed, and the run goes on", async () => {
    const docker = createDockerDriver().docker;
    await docker.ping().catch((error: Error) => {
      throw new Error(`no Docker engine answers (${error.message}): run scripts/docker/start-dockerd.sh`);
    });
    const containersOfCell = (cellId: string) =>
      docker.listContainers({ all: true, filters: { label: [`${LABEL_CELL}=${cellId}`] } });
    const containersOwnedBy = (owner: string) =>
      docker.listContainers({ all: true, filters: { label: [`${LABEL_OWNER}=${owner}`] } });

    const redis = await startOwnRedis("crash-docker");
    started.push(redis);
    const hostId = ownHostId("crash-docker");
    const env = ownWorkerEnv("crash-docker", { PERFLAB_HOST_ID: hostId });
    const first = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(first);

    const db = testDb();
    const limits = { cpus: 1, memoryMb: 256 };
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 60, warmupSeconds: 0, driver: "docker", limits },
        { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0, driver: "docker", limits },
      ],
      { redisUrl: redis.url },
    );
    const [victim, next] = cellIds as [string, string];
    victims.push(victim);

    // Wait until the load is running against the container.
    await until(
      async () => (await db.cell.findUniqueOrThrow({ where: { id: victim } })).measureStartedAt,
      60_000,
      "the load to start",
    );
    const container = await until(
      async () => (await containersOfCell(victim)).find((c) => c.State === "running"),
      10_000,
      "the cell's container",
    );
    // Owned by the first worker: host id and its pid…
    // …and its start time, so a process that reuses the pid is not taken for the worker.
    expect(container.Labels[LABEL_OWNER]).toBe(
      `${hostId}:${first.child.pid}@${processStartTime(first.child.pid!)}`,
    );
    // k6 at least: the server's environ (a container user's) is readable only when the tests run as root.
    await until(async () => (await processesOfCell(victim)).length >= 1, 10_000, "the k6 process");

    first.child.kill("SIGKILL");
    await until(async () => first.exitReason(), 10_000, "the worker to die");
    // Nothing stops a container when its worker dies: only the restarted worker can remove it.
    expect((await containersOfCell(victim)).map((c) => c.State)).toEqual(["running"]);
    const deadOwner = container.Labels[LABEL_OWNER]!;
    expect((await containersOwnedBy(deadOwner)).map((c) => c.Id)).toContain(container.Id);

    const second = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(second);
    const finished = await waitForRun(runId, 120_000);
    expect(second.child.pid).not.toBe(first.child.pid);

    const victimAfter = await db.cell.findUniqueOrThrow({ where: { id: victim } });
    expect(victimAfter.status).toBe("failed");
    // Named by the restart's orphan removal (not just the stalled job coming back).
    expect(victimAfter.error).toBe(ORPHANED_CELL);
    expect(await containersOfCell(victim)).toEqual([]);
    // No container at all, of this cell or any other, still carries the dead worker's owner label.
    expect(await containersOwnedBy(deadOwner)).toEqual([]);
    // k6 on the host and the server (container processes show in the host's /proc) are gone too.
    expect(await processesOfCell(victim)).toEqual([]);

    const nextAfter = await db.cell.findUniqueOrThrow({ where: { id: next }, include: { summary: true } });
    expect(nextAfter.status, nextAfter.error ?? "").toBe("succeeded");
    expect(nextAfter.summary!.requests).toBeGreaterThan(0n);
    expect(await containersOfCell(next)).toEqual([]);
    expect(finished.status).toBe("partial");
    expect(finished.cellsDone).toBe(2);
  });
});

describe("a worker killed mid-cell while another worker of its host waits", () => {
  it("has its server and k6 removed by that worker before the next cell starts", async () => {
    const redis = await startOwnRedis("sweep");
    started.push(redis);
    const hostId = ownHostId("sweep");
    const first = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("sweep-1", { PERFLAB_HOST_ID: hostId }),
    });
    started.push(first);

    const db = testDb();
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 60, warmupSeconds: 0 },
        { serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );
    const [victim, next] = cellIds as [string, string];
    victims.push(victim);
    await until(
      async () => (await db.cell.findUniqueOrThrow({ where: { id: victim } })).measureStartedAt,
      60_000,
      "the load to start",
    );
    const orphans = await until(
      async () => {
        const pids = await processesOfCell(victim);
        return pids.length >= 2 ? pids : null;
      },
      10_000,
      "server and k6 processes",
    );

    // A second worker of the same host, started while the first lives: its start-up sweep keeps
    // the first's processes; it takes the next cell and waits for the host.
    const logs: string[] = [];
    const second = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("sweep-2", { PERFLAB_HOST_ID: hostId }),
      log: (line) => logs.push(line),
    });
    started.push(second);
    await until(async () => logs.some((l) => l.includes("waiting for the host")), 60_000, "the wait");
    expect((await processesOfCell(victim)).sort()).toEqual([...orphans].sort());

    first.child.kill("SIGKILL");
    await until(async () => first.exitReason(), 10_000, "the worker to die");
    const finished = await waitForRun(runId, 120_000);

    const cellAfter = (id: string) =>
      db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } });
    const victimAfter = await cellAfter(victim);
    const nextAfter = await cellAfter(next);
    // Removed when the host lock came free, before the next cell: not by a restart, not at the end.
    expect([victimAfter.status, victimAfter.error]).toEqual(["failed", ORPHANED_CELL]);
    expect(victimAfter.finishedAt!.getTime()).toBeLessThanOrEqual(nextAfter.startedAt!.getTime());
    for (const pid of orphans) expect(await readFile(`/proc/${pid}/stat`).catch(() => null)).toBeNull();
    expect(await processesOfCell(victim)).toEqual([]);
    expect(nextAfter.status, nextAfter.error ?? "").toBe("succeeded");
    expect(nextAfter.summary!.requests).toBe(nextAfter.summary!.k6Requests);
    expect([finished.status, finished.cellsDone]).toEqual(["partial", 2]);
    expect(second.exitReason()).toBeNull();
  });
});
