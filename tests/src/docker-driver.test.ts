/**
 * The docker driver against the real engine (scripts/docker/start-dockerd.sh) and the images of
 * scripts/docker/build-images.sh: the Go server in a container on host networking, its limits as the
 * engine applied them, CPU and memory limits that bite, OOM detection and orphan removal.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CatalogEntry, loadServerCatalog } from "@perflab/contracts/server-catalog";
import { waitForHealthy } from "@perflab/worker";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createDockerDriver,
  type DockerDriver,
  type DockerStartRequest,
  LABEL_CELL,
  LABEL_INSTANCE,
  LABEL_OWNER,
  serverImageTag,
} from "../../apps/worker/src/drivers/docker.ts";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";
import { queueRun, testDb, waitForRun } from "./helpers.ts";

const MB = 1024 * 1024;
const HOST_ID = "perflab-docker-tests";
const OOM_IMAGE = "perflab/test-oom:1";
const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go") as CatalogEntry;

let driver: DockerDriver;
const running: { stop: (graceMs: number) => Promise<unknown> }[] = [];

async function startGo(request: Partial<DockerStartRequest> = {}) {
  const port = await freePort();
  const server = await driver.start({ server: go, cellId: `docker-test-${port}`, port, env: {}, ...request });
  running.push(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealthy({ baseUrl, mcpPath: go.mcpPath, timeoutMs: 30_000, exited: server.exited }).catch(
    (error) => {
      throw new Error(`the Go container did not become healthy: ${error.message}\n${server.logTail()}`);
    },
  );
  return { server, baseUrl, port };
}

async function connect(baseUrl: string): Promise<Client> {
  const client = new Client({ name: "perflab-docker-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${go.mcpPath}`)));
  return client;
}

/** fibonacci(32) calls completed by `clients` concurrent sessions in `seconds`, and the server CPU used. */
async function fibonacciLoad(
  baseUrl: string,
  server: { resources: () => Promise<{ cpuSeconds: number } | null> },
  clients: number,
  seconds: number,
) {
  const sessions = await Promise.all(Array.from({ length: clients }, () => connect(baseUrl)));
  await sessions[0]!.callTool({ name: "fibonacci", arguments: { n: 32 } });
  const cpuBefore = (await server.resources())!.cpuSeconds;
  const started = Date.now();
  const deadline = started + seconds * 1000;
  let calls = 0;
  await Promise.all(
    sessions.map(async (client) => {
      while (Date.now() < deadline) {
        const result = await client.callTool({ name: "fibonacci", arguments: { n: 32 } });
        expect(result.isError).toBeFalsy();
        calls++;
      }
    }),
  );
  const wall = (Date.now() - started) / 1000;
  const cpu = (await server.resources())!.cpuSeconds - cpuBefore;
  await Promise.all(sessions.map((c) => c.close()));
  return { callsPerSecond: calls / wall, cpuPerSecond: cpu / wall };
}

beforeAll(async () => {
  driver = createDockerDriver({ hostId: HOST_ID });
  // No skip: a missing engine fails the suite with the command that fixes it.
  await driver.docker.ping().catch((error: Error) => {
    throw new Error(`no Docker engine answers (${error.message}): run scripts/docker/start-dockerd.sh`);
  });
  expect(go, "the Go server's manifest").toBeDefined();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop(2_000).catch(() => undefined)));
});

describe("the Go server in a container", () => {
  it("answers MCP on 127.0.0.1, reports RSS from the engine's stats, and stops cleanly", async () => {
    const { server, baseUrl, port } = await startGo({ runId: "run-1", limits: { cpus: 1, memoryMb: 256 } });
    const client = await connect(baseUrl);
    const echoed = await client.callTool({ name: "echo", arguments: { message: "from a container" } });
    expect((echoed.content as { text: string }[])[0]!.text).toBe("from a container");
    await client.close();

    const usage = await server.resources();
    expect(usage).not.toBeNull();
    expect(usage!.rssBytes).toBeGreaterThan(1 * MB);
    expect(usage!.rssBytes).toBeLessThan(256 * MB);
    expect(usage!.cpuSeconds).toBeGreaterThan(0);
    expect(server.logTail()).toContain(`listening on http://127.0.0.1:${port}`);

    const exit = await server.stop(5_000);
    expect(exit).toEqual({ exitCode: 0, signal: null, oomKilled: false });
    const gone = await driver.docker
      .getContainer(server.containerId)
      .inspect()
      .then(() => false)
      .catch((error: { statusCode?: number }) => error.statusCode === 404);
    expect(gone, "the container is removed after stop").toBe(true);
  });

  it("runs with the cell's limits, host networking and no privileges", async () => {
    const { server, port } = await startGo({ runId: "run-2", limits: { cpus: 1.5, memoryMb: 300 } });
    const info = await driver.docker.getContainer(server.containerId).inspect();
    expect(info.HostConfig.NetworkMode).toBe("host");
    expect(server.limits).toEqual({ cpus: 1.5, memoryBytes: 300 * MB, cpuset: null });
    expect(info.HostConfig.NanoCpus).toBe(1_500_000_000);
    expect(info.HostConfig.Memory).toBe(300 * MB);
    expect(info.HostConfig.MemorySwap).toBe(300 * MB);
    expect(info.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges");
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.Config.Labels).toMatchObject({
      [LABEL_CELL]: `docker-test-${port}`,
      "perflab.run": "run-2",
      "perflab.server": "go",
    });
    expect(info.Config.Env).toContain(`PORT=${port}`);
  });

  it("pins the container to the cell's cpuset", async () => {
    const { server } = await startGo({ limits: { cpuset: "0", memoryMb: 256 } });
    const info = await driver.docker.getContainer(server.containerId).inspect();
    expect(info.HostConfig.CpusetCpus).toBe("0");
    expect(info.HostConfig.NanoCpus).toBe(1_000_000_000);
    expect(server.appliedLimits).toEqual({ cpus: 1, memoryBytes: 256 * MB, cpuset: "0" });
    await expect(startGo({ limits: { cpuset: "0-511" } })).rejects.toThrow(
      /names CPUs the engine's machine does not have/,
    );
  });

  it("defaults to 2 vCPU and 2 GB capped to the engine's machine", async () => {
    const { server } = await startGo();
    const info = await driver.docker.getContainer(server.containerId).inspect();
    const capacity = await driver.capacity();
    expect(info.HostConfig.NanoCpus).toBe(Math.min(2, capacity.cpus) * 1e9);
    expect(info.HostConfig.Memory).toBe(Math.min(2048 * MB, capacity.memoryBytes));
  });

  it("computes fibonacci(32) at the pace its CPU quota allows under parallel load", async () => {
    // Quarter and one vCPU: far enough apart to show even while other work shares the host's cores.
    const quarter = await startGo({ limits: { cpus: 0.25 } });
    const atQuarter = await fibonacciLoad(quarter.baseUrl, quarter.server, 4, 3);
    const stats = (await driver.docker
      .getContainer(quarter.server.containerId)
      .stats({ stream: false, "one-shot": true } as never)) as unknown as {
      cpu_stats: { throttling_data: { throttled_periods: number } };
    };
    await quarter.server.stop(2_000);
    const one = await startGo({ limits: { cpus: 1 } });
    const atOne = await fibonacciLoad(one.baseUrl, one.server, 4, 3);
    console.log(
      `fibonacci(32): 0.25 vCPU ${atQuarter.callsPerSecond.toFixed(1)}/s (server CPU ${atQuarter.cpuPerSecond.toFixed(2)} cores), ` +
        `1 vCPU ${atOne.callsPerSecond.toFixed(1)}/s (${atOne.cpuPerSecond.toFixed(2)} cores)`,
    );
    // The quota caps it whatever the host has free, and bites (the kernel throttled the container)
    // whenever the host let it reach the quota: a loaded 2-core machine may give it less.
    if (atQuarter.cpuPerSecond > 0.2)
      expect(stats.cpu_stats.throttling_data.throttled_periods).toBeGreaterThan(0);
    expect(atQuarter.cpuPerSecond).toBeLessThan(0.3);
    expect(atOne.cpuPerSecond).toBeLessThan(1.1);
    // The pace follows the CPU time the server got: the same work per CPU second under either quota…
    const perCpuSecond = (r: { callsPerSecond: number; cpuPerSecond: number }) =>
      r.callsPerSecond / r.cpuPerSecond;
    expect(perCpuSecond(atOne) / perCpuSecond(atQuarter)).toBeGreaterThan(0.67);
    expect(perCpuSecond(atOne) / perCpuSecond(atQuarter)).toBeLessThan(1.5);
    // …so 4× the quota is 1.5× the pace whenever the host had the cores to give: other work on a
    // loaded 2-core machine can leave the 1 vCPU server less CPU than the quarter's.
    expect(atOne.callsPerSecond).toBeGreaterThan(atQuarter.callsPerSecond);
    if (atOne.cpuPerSecond > atQuarter.cpuPerSecond * 2)
      expect(atOne.callsPerSecond).toBeGreaterThan(atQuarter.callsPerSecond * 1.5);
  });

  it("names a missing image and the command that builds it", async () => {
    const missing = createDockerDriver({
      hostId: HOST_ID,
      imageFor: () => "perflab/server-go:does-not-exist",
    });
    await expect(
      missing.start({ server: go, cellId: "missing", port: await freePort(), env: {} }),
    ).rejects.toThrow(
      /perflab\/server-go:does-not-exist is not on the Docker engine: build it with scripts\/docker\/build-images.sh go/,
    );
  });
});

describe("memory limit", () => {
  let dir: string;
  beforeAll(async () => {
    // A process that keeps an ever-growing line in memory: the smallest thing that must hit the limit.
    dir = await mkdtemp(path.join(os.tmpdir(), "perflab-oom-"));
    await writeFile(
      path.join(dir, "Dockerfile"),
      'FROM perflab/debian-base:bookworm\nENTRYPOINT ["sh", "-c", "echo allocating; head -c 1073741824 /dev/zero | tail"]\n',
    );
    const build = spawnSync("docker", ["build", "-q", "-t", OOM_IMAGE, dir], {
      encoding: "utf8",
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
    });
    expect(build.status, build.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reports oomKilled for a container pushed past its limit", async () => {
    const oomDriver = createDockerDriver({ hostId: HOST_ID, imageFor: () => OOM_IMAGE });
    const server = await oomDriver.start({
      server: { ...go, name: "oom" },
      cellId: "docker-test-oom",
      port: await freePort(),
      env: {},
      limits: { memoryMb: 32 },
    });
    running.push(server);
    const exit = await Promise.race([
      server.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no OOM kill within 30 s")), 30_000),
      ),
    ]);
    expect(exit.oomKilled).toBe(true);
    expect(exit.exitCode).toBe(137);
    expect(server.logTail()).toContain("allocating");
    expect(await server.stop(1_000)).toEqual(exit);
  });
});

describe("removeOrphans", () => {
  it("removes containers of a dead worker on this host and keeps a live worker's", async () => {
    const dead = spawnSync("true").pid!;
    const image = await serverImageTag(go);
    const make = (cell: string, owner: string) =>
      driver.docker.createContainer({
        Image: image,
        Labels: { [LABEL_CELL]: cell, [LABEL_OWNER]: owner, [LABEL_INSTANCE]: "earlier" },
        HostConfig: { NetworkMode: "host" },
      });
    const orphan = await make("orphan-cell", `${HOST_ID}:${dead}`);
    const live = await make("live-cell", `${HOST_ID}:${process.ppid}`);
    const otherHost = await make("other-host-cell", `another-host:${dead}`);
    try {
      const cells = await driver.removeOrphans();
      expect(cells).toContain("orphan-cell");
      expect(cells).not.toContain("live-cell");
      expect(cells).not.toContain("other-host-cell");
      const exists = (id: string) =>
        driver.docker
          .getContainer(id)
          .inspect()
          .then(() => true)
          .catch(() => false);
      expect(await exists(orphan.id)).toBe(false);
      expect(await exists(live.id)).toBe(true);
      expect(await exists(otherHost.id)).toBe(true);
    } finally {
      for (const c of [orphan, live, otherHost]) await c.remove({ force: true }).catch(() => undefined);
    }
  });
});

describe("a cell on the docker driver, through the worker", () => {
  it("produces per-second points with the container's memory, a summary, and records limits and image", async () => {
    const { runId, cellIds } = await queueRun([
      {
        serverName: "go",
        vus: 2,
        durationSeconds: 4,
        warmupSeconds: 1,
        driver: "docker",
        limits: { cpus: 1, memoryMb: 256 },
      },
    ]);
    const run = await waitForRun(runId, 120_000);
    const db = testDb();
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! }, include: { summary: true } });
    expect(cell.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(cell.limits).toEqual({ cpus: 1, memoryMb: 256 });
    expect((cell.serverBuild as { image?: string }).image).toMatch(/^perflab\/server-go:/);
    const points = await db.metricPoint.findMany({ where: { cellId: cell.id, phase: "measure" } });
    expect(points.length).toBeGreaterThanOrEqual(3);
    expect(points.some((p) => p.rssBytes !== null && p.rssBytes > 0n && p.cpuPct !== null)).toBe(true);
    expect(cell.summary!.requests).toBe(cell.summary!.k6Requests);
    expect(cell.summary!.rssPeakBytes).not.toBeNull();
    expect(cell.exitCode).toBe(0);
    // The container is gone once the cell ends.
    const left = await driver.docker.listContainers({
      all: true,
      filters: { label: [`${LABEL_CELL}=${cell.id}`] },
    });
    expect(left).toEqual([]);
  });
});

describe("a server pushed past its memory limit, through the worker", () => {
  it("ends the cell `failed: OOM-killed` with the log tail, and the run's next cell still runs", async () => {
    const { runId, cellIds } = await queueRun([
      // 16 sessions each holding a 1 MiB reply (and its JSON and SSE copies): far past 32 MB within
      // a second or two, so the kernel kills the server instead of letting it crawl at the limit.
      {
        serverName: "go",
        vus: 16,
        durationSeconds: 8,
        warmupSeconds: 0,
        driver: "docker",
        tool: "echo",
        args: { message: "x", pad_to_bytes: 1_048_576 },
        limits: { memoryMb: 32 },
      },
      {
        serverName: "go",
        vus: 2,
        durationSeconds: 2,
        warmupSeconds: 0,
        driver: "docker",
        limits: { cpus: 1, memoryMb: 256 },
      },
    ]);
    const run = await waitForRun(runId, 120_000);
    const db = testDb();
    const [oom, next] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );

    expect(oom!.status, oom!.error ?? "").toBe("failed");
    expect(oom!.error).toMatch(/^OOM-killed/);
    expect(oom!.oomKilled).toBe(true);
    expect(oom!.exitCode).toBe(137);
    expect(oom!.limits).toEqual({ cpus: expect.any(Number), memoryMb: 32 });
    // The server's own output up to its death.
    expect(oom!.logTail).toContain("listening on http://127.0.0.1:");
    expect(oom!.summary).toBeNull();
    // k6 stopped with the server instead of loading a closed port for the rest of its 8 s.
    const loadSeconds = await db.metricPoint.count({ where: { cellId: oom!.id } });
    expect(loadSeconds).toBeLessThan(7);

    expect(next!.status, next!.error ?? "").toBe("succeeded");
    expect(next!.oomKilled).toBe(false);
    expect(next!.summary!.requests).toBeGreaterThan(0n);
    expect(run.status).toBe("partial");
    expect(run.cellsDone).toBe(2);
    expect(run.cellsFailed).toBe(1);

    for (const id of cellIds) {
      const left = await driver.docker.listContainers({
        all: true,
        filters: { label: [`${LABEL_CELL}=${id}`] },
      });
      expect(left, `containers of cell ${id}`).toEqual([]);
    }
  });
});
