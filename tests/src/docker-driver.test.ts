/**
 * The docker driver against the real engine (scripts/docker/start-dockerd.sh) and the images of
 * scripts/docker/build-images.sh: the Go server in a container on host networking, its limits as the
 * engine applied them, CPU and memory limits that bite, OOM detection and orphan removal.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CatalogEntry, loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { runChannel, type TLiveEvent } from "@perflab/contracts";
import {
  createDockerDriver,
  type DockerDriver,
  type DockerStartRequest,
  hostCpuTimes,
  LABEL_CELL,
  LABEL_INSTANCE,
  LABEL_OWNER,
  LABEL_ROLE,
  resourcesFromStats,
  waitForHealthy,
} from "@perflab/worker/testing";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";
import { queueRun, testDb, waitForRun } from "./helpers.ts";

const MB = 1024 * 1024;
const HOST_ID = "perflab-docker-tests";
const OOM_IMAGE = "perflab/test-oom:1";
const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go") as CatalogEntry;

let driver: DockerDriver;
const running: { stop: (graceMs: number) => Promise<unknown> }[] = [];

async function startGo(request: Partial<DockerStartRequest> = {}, using: DockerDriver = driver) {
  const port = await freePort();
  const server = await using.start({ server: go, cellId: `docker-test-${port}`, port, env: {}, ...request });
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

type EngineStats = {
  cpu_stats: {
    cpu_usage: { total_usage: number };
    throttling_data?: { periods: number; throttled_periods: number };
  };
  memory_stats: { usage?: number; stats?: Record<string, number> };
};

/** One reading of the engine's stats for a cell's server container, taken at `at` (ms). */
type ContainerReading = {
  at: number;
  /** The server's memory as `docker stats` shows it (usage minus inactive file pages). */
  rssBytes: number;
  /** Resident memory of the container's main process as /proc reports it. */
  procRssBytes: number | null;
  cpuSeconds: number;
  /** The CPU quota the engine applied, from inspecting the container. */
  nanoCpus: number | null;
  periods: number;
  throttledPeriods: number;
};

async function procRss(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return kb ? Number(kb[1]) * 1024 : null;
}

/**
 * Reads the engine's stats of the server container a worker runs for `cellId` (the one labelled with
 * the cell and no role: k6 and probes have one) from outside the worker until stopped, pausing
 * `intervalMs` between readings (each stats call itself waits for the engine's next sample, about 1 s).
 */
function watchServerContainer(cellId: string, intervalMs = 250) {
  const readings: ContainerReading[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const containers = await driver.docker
        .listContainers({ filters: { label: [`${LABEL_CELL}=${cellId}`], status: ["running"] } })
        .catch(() => []);
      const server = containers.find((c) => !c.Labels[LABEL_ROLE]);
      if (server) {
        const container = driver.docker.getContainer(server.Id);
        const at = Date.now();
        const stats = container.stats({ stream: false, "one-shot": true } as never) as unknown;
        const sample = await (stats as Promise<EngineStats>).catch(() => null);
        const info = await container.inspect().catch(() => null);
        const pid = info?.State.Pid ?? 0;
        const resources = sample ? resourcesFromStats(sample) : null;
        if (sample && resources)
          readings.push({
            at,
            rssBytes: resources.rssBytes,
            procRssBytes: pid > 0 ? await procRss(pid) : null,
            cpuSeconds: resources.cpuSeconds,
            nanoCpus: info?.HostConfig.NanoCpus ?? null,
            periods: sample.cpu_stats.throttling_data?.periods ?? 0,
            throttledPeriods: sample.cpu_stats.throttling_data?.throttled_periods ?? 0,
          });
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    readings,
    stop: async () => {
      stopped = true;
      await done;
      return readings;
    },
  };
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
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges");
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.Config.Labels).toMatchObject({
      [LABEL_CELL]: `docker-test-${port}`,
      "perflab.run": "run-2",
      "perflab.server": "go",
    });
    expect(info.Config.Env).toContain(`PORT=${port}`);
  });

  it("gives back only what the server's manifest says its runtime needs: a writable root, named capabilities", async () => {
    const relaxed: CatalogEntry = {
      ...go,
      container: { writableRoot: true, capabilities: ["NET_BIND_SERVICE"] },
    };
    const port = await freePort();
    const server = await driver.start({ server: relaxed, cellId: `docker-test-${port}`, port, env: {} });
    running.push(server);
    const info = await driver.docker.getContainer(server.containerId).inspect();
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect(info.HostConfig.CapAdd).toEqual(["NET_BIND_SERVICE"]);
    expect(info.HostConfig.ReadonlyRootfs).toBe(false);
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges");
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
    // The pace follows the CPU time the server got: about the same work per CPU second under either
    // quota (within 2×; a quarter throttled every period gets less done per CPU second: 1.50× seen)…
    const perCpuSecond = (r: { callsPerSecond: number; cpuPerSecond: number }) =>
      r.callsPerSecond / r.cpuPerSecond;
    expect(perCpuSecond(atOne) / perCpuSecond(atQuarter)).toBeGreaterThan(0.5);
    expect(perCpuSecond(atOne) / perCpuSecond(atQuarter)).toBeLessThan(2);
    // …so 4× the quota is 1.5× the pace whenever the host had the cores to give: other work on a
    // loaded 2-core machine can leave the 1 vCPU server less CPU than the quarter's.
    expect(atOne.callsPerSecond).toBeGreaterThan(atQuarter.callsPerSecond);
    if (atOne.cpuPerSecond > atQuarter.cpuPerSecond * 2)
      expect(atOne.callsPerSecond).toBeGreaterThan(atQuarter.callsPerSecond * 1.5);
  });

  /** A driver whose engine client hands out the real containers with `broken` calls replaced. */
  function brokenEngine(
    broken: Partial<Record<"stop" | "wait", () => Promise<never>>>,
    exitTimeoutMs?: number,
  ) {
    const real = driver.docker;
    const docker = Object.create(real) as typeof real;
    docker.createContainer = async (options) => Object.assign(await real.createContainer(options), broken);
    return createDockerDriver({ docker, hostId: HOST_ID, ...(exitTimeoutMs ? { exitTimeoutMs } : {}) });
  }
  const gone = (id: string) =>
    driver.docker
      .getContainer(id)
      .inspect()
      .then(() => false)
      .catch((error: { statusCode?: number }) => error.statusCode === 404);

  it("kills and removes a container the engine failed to stop, and names the failure", async () => {
    // What moby answers when it lost the container's exit event.
    const stop = async (): Promise<never> => {
      throw Object.assign(
        new Error(
          "(HTTP code 500) server error - tried to kill container, but did not receive an exit event",
        ),
        { statusCode: 500 },
      );
    };
    const { server } = await startGo({ limits: { cpus: 1, memoryMb: 256 } }, brokenEngine({ stop }));
    await expect(server.stop(2_000)).rejects.toThrow(
      `stopping container ${server.containerId} failed: (HTTP code 500) server error - tried to kill container, but did not receive an exit event (killed and removed it instead)`,
    );
    expect(await server.exited).toEqual({ exitCode: 137, signal: "SIGKILL", oomKilled: false });
    expect(await gone(server.containerId), "the container is removed after the failed stop").toBe(true);
  });

  it("reads the exit from the container's state when the engine's wait never answers", async () => {
    // A wait connection to a remote engine that was dropped without a reset.
    const wait = () => new Promise<never>(() => undefined);
    const { server } = await startGo({ limits: { cpus: 1, memoryMb: 256 } }, brokenEngine({ wait }, 1_000));
    const exit = await server.stop(2_000);
    expect(exit).toEqual({ exitCode: 0, signal: null, oomKilled: false });
    expect(await server.exited).toEqual(exit);
    expect(server.logTail()).toContain(
      `the engine did not report the exit of container ${server.containerId} within 1000 ms`,
    );
    expect(await gone(server.containerId), "the container is removed after stop").toBe(true);
  });

  it("waits again when the engine's wait breaks off while the container still runs", async () => {
    // The first wait's connection is reset (an engine restarted with live-restore, a remote
    // engine's connection cut): the server goes on, and its exit is still the one reported.
    let waits = 0;
    const real = driver.docker;
    const docker = Object.create(real) as typeof real;
    docker.createContainer = async (options) => {
      const container = await real.createContainer(options);
      const wait = container.wait.bind(container);
      return Object.assign(container, {
        wait: (opts: object) => {
          waits++;
          return waits === 1
            ? Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
            : wait(opts);
        },
      });
    };
    const { server, baseUrl } = await startGo(
      { limits: { cpus: 1, memoryMb: 256 } },
      createDockerDriver({ docker, hostId: HOST_ID }),
    );
    const settled = await Promise.race([
      server.exited.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 2_500)),
    ]);
    expect(settled, "a dropped wait is not the server's exit").toBe(false);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    expect(waits).toBeGreaterThanOrEqual(2);
    expect(server.logTail()).toContain(
      "broke off (socket hang up); it still runs: waiting again (said once)",
    );
    const exit = await server.stop(2_000);
    expect(exit).toEqual({ exitCode: 0, signal: null, oomKilled: false });
  });

  it("says a container had exited on its own when the engine answers the stop 'already stopped'", async () => {
    const { server } = await startGo({ limits: { cpus: 1, memoryMb: 256 } });
    const container = driver.docker.getContainer(server.containerId);
    await container.kill({ signal: "SIGKILL" });
    await expect.poll(async () => (await container.inspect()).State.Running, { timeout: 10_000 }).toBe(false);
    const exit = await server.stop(2_000);
    expect(exit).toMatchObject({ signal: "SIGKILL", beforeStop: true });
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
    // Stopped after it died: the engine says so, and the exit is the one reported.
    expect(await server.stop(1_000)).toEqual({ ...exit, beforeStop: true });
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

describe("CPU limits that bite, through the worker", () => {
  // fibonacci(32) costs about 13 ms of CPU here: 4 VUs keep two cores busy while k6 itself needs
  // about a tenth of a core.
  const FIB_N = 32;
  const VUS = 4;
  // Measured on a quiet 2-core VM (12 runs): 2 vCPU served 1.55-2.13× the calls of 1 vCPU, with
  // other work (worker, engine, database, this test) at 0.24-0.48 cores beside server and k6.
  const MIN_RATIO = 1.4;
  const OTHER_WORK_CORES = 0.6;
  const cores = os.cpus().length;

  /** Waits up to `timeoutMs` for a second in which the host's CPUs were mostly idle; returns the busy cores. */
  async function quietHost(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let busy = Number.POSITIVE_INFINITY;
    while (Date.now() < deadline) {
      const before = await hostCpuTimes();
      await new Promise((r) => setTimeout(r, 1_000));
      const after = await hostCpuTimes();
      busy = ((after.busy - before.busy) / (after.total - before.total)) * cores;
      if (busy < 0.5) break;
    }
    return busy;
  }

  /** fibonacci(FIB_N) under VUS VUs at 1, then 2 vCPU in one run; each server container watched through the engine. */
  async function atOneAndTwo() {
    await quietHost(30_000);
    const cell = (cpus: number) => ({
      serverName: "go",
      vus: VUS,
      durationSeconds: 5,
      warmupSeconds: 1,
      driver: "docker" as const,
      tool: "fibonacci",
      args: { n: FIB_N },
      limits: { cpus, memoryMb: 256 },
    });
    const { runId, cellIds } = await queueRun([cell(1), cell(2)]);
    const watchers = cellIds.map((id) => watchServerContainer(id, 1_000));
    const run = await waitForRun(runId, 120_000);
    const readings = await Promise.all(watchers.map((w) => w.stop()));
    expect(run.status).toBe("succeeded");
    const db = testDb();
    return Promise.all(
      cellIds.map(async (id, i) => {
        const cell = await db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } });
        const s = cell.summary!;
        expect(readings[i]!.length, `engine stats of cell ${i}'s container`).toBeGreaterThan(0);
        const last = readings[i]!.at(-1)!;
        const serverCores = s.cpuAvgPct! / 100;
        const k6Cores = s.k6CpuAvgPct! / 100;
        const hostCores = (s.hostCpuAvgPct! / 100) * cores;
        return {
          limits: cell.limits,
          opsPerSecond: s.opsRps,
          serverCores,
          k6Cores,
          // What else the host ran meanwhile: the worker and engine, and whatever else shares it.
          otherCores: hostCores - serverCores - k6Cores,
          nanoCpus: last.nanoCpus,
          periods: last.periods,
          throttledPeriods: last.throttledPeriods,
          // CPU time per enforcement period the cgroup was active in (the engine's default period is
          // 100 ms): at most the quota, whatever the host's clock or the sampling did.
          coresPerPeriod: last.cpuSeconds / (last.periods * 0.1),
        };
      }),
    );
  }

  it("runs a CPU-bound tool measurably slower at 1 vCPU than at 2, and throttles it at 1", async () => {
    let [one, two] = await atOneAndTwo();
    // Other work on the host takes the cores 2 vCPU would use: measure once more when it did.
    const busy = Math.max(one!.otherCores, two!.otherCores);
    if (busy > OTHER_WORK_CORES) {
      console.log(`other work used ${busy.toFixed(2)} cores during the measurement: measuring again`);
      [one, two] = await atOneAndTwo();
    }
    const measured = JSON.stringify({ one, two });
    console.log(`fibonacci(${FIB_N}) at 1 and 2 vCPU: ${measured}`);
    // The engine applied each cell's quota, and the cell records it.
    expect([one!.nanoCpus, two!.nanoCpus]).toEqual([1e9, 2e9]);
    expect([one!.limits, two!.limits]).toEqual([
      { cpus: 1, memoryMb: 256 },
      { cpus: 2, memoryMb: 256 },
    ]);
    // At 1 vCPU the server wanted more than its quota: the kernel throttled it to one core's time.
    expect(one!.throttledPeriods, measured).toBeGreaterThan(0);
    expect(one!.coresPerPeriod, measured).toBeLessThanOrEqual(1.05);
    expect(one!.serverCores, measured).toBeLessThanOrEqual(1.05);
    // At 2 vCPU the same load is served measurably faster.
    expect(two!.opsPerSecond / one!.opsPerSecond, measured).toBeGreaterThanOrEqual(MIN_RATIO);
    // The cell's CPU (the engine's stats stream, per second over the measured window) agrees with the
    // cgroup's own count of CPU per active period, at both limits.
    for (const cell of [one!, two!]) {
      expect(Math.abs(cell.serverCores / cell.coresPerPeriod - 1), measured).toBeLessThanOrEqual(0.12);
    }
  }, 300_000);
});

describe("a cell on the docker driver, through the worker", () => {
  it("produces per-second points with the container's memory, a summary, and records limits and image", async () => {
    // The live page hears the enforced limits and the image as soon as the server has started.
    const events: TLiveEvent[] = [];
    const subscriber = new Redis(inject("redisUrl"));
    subscriber.on("pmessage", (_pattern, _channel, message) =>
      events.push(JSON.parse(message) as TLiveEvent),
    );
    await subscriber.psubscribe(runChannel("*"));
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
    const watcher = watchServerContainer(cellIds[0]!);
    const run = await waitForRun(runId, 120_000);
    const readings = await watcher.stop();
    await subscriber.quit();
    const db = testDb();
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellIds[0]! }, include: { summary: true } });
    expect(cell.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(cell.driver).toBe("docker");
    expect(cell.limits).toEqual({ cpus: 1, memoryMb: 256 });
    const build = cell.serverBuild as { image?: string; imageId?: string };
    expect(build.image).toBe(await serverImageTag(go));
    // The content id of the image that ran, as the engine names it.
    expect(build.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(build.imageId).toBe((await driver.docker.getImage(build.image!).inspect()).Id);
    const ofCell = events.filter((e) => "cellId" in e && e.cellId === cell.id);
    const started = ofCell.flatMap((e) => (e.type === "cell" && e.started ? [e.started] : []));
    expect(started).toEqual([
      { limits: { cpus: 1, memoryMb: 256, cpuset: null }, image: build.image, imageId: build.imageId },
    ]);
    // ...before the first point of the load.
    const firstPoint = ofCell.findIndex((e) => e.type === "point");
    expect(ofCell.findIndex((e) => e.type === "cell" && e.started !== undefined)).toBeLessThan(firstPoint);
    const points = await db.metricPoint.findMany({ where: { cellId: cell.id }, orderBy: { t: "asc" } });
    expect(points.filter((p) => p.phase === "measure").length).toBeGreaterThanOrEqual(3);
    expect(points.some((p) => p.rssBytes !== null && p.rssBytes > 0n && p.cpuPct !== null)).toBe(true);
    // The memory of each second is the container's as `docker stats` shows it (cgroup usage minus
    // inactive file pages), read here beside the worker while the load ran. The engine publishes stats once a
    // second, so a reading of ours is compared with the stored seconds around it.
    const loadFrom = points[0]!.t.getTime() + 1_500;
    const loadTo = points.at(-1)!.t.getTime();
    const compared = readings.flatMap((r) => {
      if (r.at < loadFrom || r.at > loadTo) return [];
      const near = points
        .filter((p) => p.rssBytes !== null && Math.abs(p.t.getTime() + 1_000 - r.at) <= 2_000)
        .map((p) => Number(p.rssBytes));
      if (near.length === 0 || r.procRssBytes === null) return [];
      const stored = near.reduce((a, b) => (Math.abs(b - r.rssBytes) < Math.abs(a - r.rssBytes) ? b : a));
      return [{ engine: r.rssBytes, proc: r.procRssBytes, stored }];
    });
    expect(compared.length, JSON.stringify(readings)).toBeGreaterThanOrEqual(3);
    for (const c of compared) {
      const tolerance = Math.max(0.1 * c.engine, 1 * MB);
      expect(Math.abs(c.stored - c.engine), JSON.stringify(c)).toBeLessThanOrEqual(tolerance);
      // Not the process's RSS from /proc (it counts the binary's mapped pages, which the cgroup books
      // as cache): here the two measures are further apart than the tolerance.
      expect(Math.abs(c.proc - c.engine), JSON.stringify(c)).toBeGreaterThan(tolerance);
    }
    // The idle figure is the started server's (read after it answered), not a sample of the engine's
    // from before the runtime was up (a Go container reads ~1.5 MB then, ~6 MB idle, ~8 MB at 2 VUs).
    const lightest = Math.min(...compared.map((c) => c.engine));
    expect(
      Number(cell.idleRssBytes),
      `idle ${cell.idleRssBytes} B, lightest under load ${lightest} B`,
    ).toBeGreaterThan(0.5 * lightest);
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
