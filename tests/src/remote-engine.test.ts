/**
 * A Docker engine on another machine (DOCKER_HOST=tcp://…): a second dockerd in a network namespace
 * of its own (scripts/docker/netns-engine.sh), whose containers' 127.0.0.1 this machine cannot reach.
 * A worker of its own (its own Redis) runs a matrix there: every docker cell's server, k6, probe and
 * fixture backends run on the engine's machine, and results land as with a local engine. A local cell
 * of the same run still runs beside the worker.
 */
import { execFile } from "node:child_process";
import { connect } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { fixturesImageTag, k6ImageTag, loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { BACKEND_IMAGES, dockerAt, LABEL_CELL, LABEL_OWNER, LABEL_ROLE } from "@perflab/worker/testing";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot, type Service, startWorker } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, queueRun, startOwnRedis, testDb, until, waitForRun } from "./helpers.ts";

const script = path.join(repoRoot, "scripts/docker/netns-engine.sh");
const run = promisify(execFile);
const started: Service[] = [];
let dockerHost = "";
let remote: ReturnType<typeof dockerAt>;

beforeAll(async () => {
  const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;
  const images = [
    await serverImageTag(go),
    await k6ImageTag(path.join(repoRoot, "packages/k6-output")),
    await fixturesImageTag(path.join(repoRoot, "servers/fixtures")),
    BACKEND_IMAGES.redis,
    BACKEND_IMAGES.postgres,
  ];
  const { stdout } = await run("bash", [script, "up", ...images], { timeout: 240_000 });
  dockerHost = /DOCKER_HOST=(\S+)/.exec(stdout)![1]!;
  remote = dockerAt(dockerHost);
}, 300_000);

// Each test's workers stop with it (removing their containers on the engine), whatever it asserted.
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
});

afterAll(async () => {
  await run("bash", [script, "down"], { timeout: 60_000 });
});

/** Whether anything on this machine accepts connections on 127.0.0.1:port. */
function listensHere(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("a Docker engine on another machine", () => {
  it("runs docker cells, their k6 and their fixtures on the engine's machine and records that machine", async () => {
    const engine = (await remote.info()) as { ID: string; NCPU: number; Name: string };
    const redis = await startOwnRedis("remote-engine");
    started.push(redis);
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("remote-engine", {
        PERFLAB_HOST_ID: "perflab-remote-engine-tests",
        DOCKER_HOST: dockerHost,
      }),
    });
    started.push(worker);

    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 4, durationSeconds: 4, warmupSeconds: 1, driver: "docker" },
        // Redis and the fixture API, then Postgres: backends on the engine's machine, reset per cell.
        {
          serverName: "go",
          vus: 2,
          durationSeconds: 3,
          warmupSeconds: 0,
          driver: "docker",
          tool: "get_user_cart",
          args: { user_id: 7 },
        },
        {
          serverName: "go",
          vus: 2,
          durationSeconds: 3,
          warmupSeconds: 0,
          driver: "docker",
          tool: "get_user",
          args: { id: 42 },
        },
        { serverName: "go", vus: 2, durationSeconds: 3, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );

    // While the first cell loads, its server answers on the engine's loopback only.
    const db = testDb();
    const port = await until(
      async () => {
        const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! } });
        return cell.status === "running" && cell.healthyAt && cell.port;
      },
      120_000,
      "the first cell to be healthy",
    );
    expect(await listensHere(port)).toBe(false);

    const finished = await waitForRun(runId, 240_000);
    const cells = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );
    expect(cells.map((c) => [c.status, c.error])).toEqual(cells.map(() => ["succeeded", null]));
    expect(finished.status).toBe("succeeded");

    for (const cell of cells.slice(0, 3)) {
      // Measured on the engine's machine, and k6 ran there too.
      const fingerprint = cell.hostFingerprint as { hostId: string; cores: number; hostname: string };
      expect(fingerprint.hostId).toBe(`engine:${engine.ID}`);
      expect(fingerprint.cores).toBe(engine.NCPU);
      expect(cell.k6Version).toMatch(/\[container perflab\/k6:[0-9a-f]{12}\]$/);
      expect(cell.coldStartMs).toBeGreaterThan(0);
      expect(cell.coldStartMs).toBeLessThan(30_000);
      expect(cell.idleRssBytes).toBeGreaterThan(0n);
      // /debug/runtime as the probe read it after health: the container's 2 vCPU limit.
      expect(cell.parallelism).toBe(Math.min(2, engine.NCPU));
      const summary = cell.summary!;
      expect(summary.requests).toBeGreaterThan(0n);
      expect(summary.errors).toBe(0n);
      expect(summary.k6Requests).toBe(summary.requests);
      const points = await db.metricPoint.findMany({ where: { cellId: cell.id, phase: "measure" } });
      expect(points.length).toBeGreaterThanOrEqual(2);
      // The engine's stats (server, k6) and the probe's readings (host CPU, /debug/runtime) per second.
      // (The seconds the load starts and ends in may be cut short of a reading, as with a local engine.)
      const withRss = points.filter((p) => (p.rssBytes ?? 0n) > 0n && p.cpuPct !== null);
      expect(
        withRss.length,
        JSON.stringify(points.map((p) => [p.t, String(p.rssBytes)])),
      ).toBeGreaterThanOrEqual(Math.max(2, points.length - 2));
      expect(points.some((p) => (p.k6CpuPct ?? 0) > 0)).toBe(true);
      expect(points.some((p) => (p.hostCpuPct ?? 0) > 0)).toBe(true);
      expect(points.some((p) => p.runtime !== null && typeof p.runtime === "object")).toBe(true);
    }
    // The local cell ran beside the worker, with the local k6.
    const local = cells[3]!;
    expect((local.hostFingerprint as { hostId: string }).hostId).toBe("perflab-remote-engine-tests");
    expect(local.k6Version).not.toMatch(/container/);

    // Only the fixture backends stay while the worker lives; the cells' containers are gone.
    const left = await remote.listContainers({ all: true, filters: { label: [LABEL_OWNER] } });
    expect(left.map((c) => c.Labels[LABEL_ROLE]).sort()).toEqual([
      "fixture-api",
      "fixture-postgres",
      "fixture-redis",
    ]);
    expect(worker.exitReason()).toBeNull();
    await worker.stop();
    started.splice(started.indexOf(worker), 1);
    expect(await remote.listContainers({ all: true })).toEqual([]);
  });

  it("after a worker is killed mid-cell, the next worker removes its server, k6, probe and fixtures there", async () => {
    const redis = await startOwnRedis("remote-crash");
    started.push(redis);
    const env = ownWorkerEnv("remote-crash", {
      PERFLAB_HOST_ID: "perflab-remote-crash-tests",
      DOCKER_HOST: dockerHost,
    });
    const first = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(first);
    const { runId, cellIds } = await queueRun(
      [
        {
          serverName: "go",
          vus: 2,
          durationSeconds: 60,
          warmupSeconds: 0,
          driver: "docker",
          tool: "get_user_cart",
          args: { user_id: 3 },
        },
        { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0, driver: "docker" },
      ],
      { redisUrl: redis.url },
    );
    const [victim, next] = cellIds as [string, string];
    const db = testDb();
    await until(
      async () => (await db.metricPoint.count({ where: { cellId: victim } })) > 0,
      120_000,
      "the first cell's load to run",
    );
    const roles = async (filter: string) =>
      (await remote.listContainers({ all: true, filters: { label: [filter] } }))
        .map((c) => c.Labels[LABEL_ROLE] ?? "server")
        .sort();
    expect(await roles(`${LABEL_CELL}=${victim}`)).toEqual(["k6", "probe", "server"]);

    first.child.kill("SIGKILL");
    await until(async () => first.exitReason(), 10_000, "the worker to die");
    // Nothing on the engine noticed: the dead worker's containers run on.
    expect(await roles(LABEL_OWNER)).toEqual([
      "fixture-api",
      "fixture-postgres",
      "fixture-redis",
      "k6",
      "probe",
      "server",
    ]);

    const second = startWorker({ databaseUrl: inject("databaseUrl"), redisUrl: redis.url, env });
    started.push(second);
    const finished = await waitForRun(runId, 180_000);
    const [victimAfter, nextAfter] = await Promise.all(
      [victim, next].map((id) => db.cell.findUniqueOrThrow({ where: { id } })),
    );
    expect(victimAfter!.status).toBe("failed");
    expect(victimAfter!.error).toMatch(/worker/);
    expect([nextAfter!.status, nextAfter!.error]).toEqual(["succeeded", null]);
    expect(finished.status).toBe("partial");
    // The echo cell needed no fixtures: nothing of either worker is left on the engine.
    expect(await remote.listContainers({ all: true })).toEqual([]);
  });
});
