import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createDockerDriver, isOrphan } from "./docker.ts";
import { LABEL_INSTANCE, LABEL_OWNER } from "./docker-engine.ts";
import { exitInfoFromState } from "./docker-exit.ts";
import { cpusetFor, cpusetIds, resolveLimits } from "./docker-limits.ts";
import { memoryFromStats, resourcesFromStats, watchStats } from "./docker-stats.ts";
import type { Driver } from "./types.ts";

const GB = 1024 ** 3;

describe("resolveLimits", () => {
  it("defaults to 2 vCPU and 2 GB", () => {
    expect(resolveLimits(undefined, { cpus: 8, memoryBytes: 64 * GB })).toEqual({
      cpus: 2,
      memoryBytes: 2 * GB,
      cpuset: null,
    });
  });
  it("caps the limits to what the engine's machine has", () => {
    expect(resolveLimits({ cpus: 16, memoryMb: 65_536 }, { cpus: 2, memoryBytes: 4 * GB })).toEqual({
      cpus: 2,
      memoryBytes: 4 * GB,
      cpuset: null,
    });
  });
  it("keeps fractional CPUs and small memory limits as asked", () => {
    expect(resolveLimits({ cpus: 0.5, memoryMb: 32 }, { cpus: 2, memoryBytes: 4 * GB })).toEqual({
      cpus: 0.5,
      memoryBytes: 32 * 1024 * 1024,
      cpuset: null,
    });
  });
  it("pins to the cell's cpuset, sizing the quota to it unless a CPU count is given", () => {
    const host = { cpus: 8, memoryBytes: 64 * GB };
    expect(resolveLimits({ cpuset: "3" }, host)).toMatchObject({ cpus: 1, cpuset: "3" });
    expect(resolveLimits({ cpuset: "0-3,6" }, host)).toMatchObject({ cpus: 2, cpuset: "0-3,6" });
    expect(resolveLimits({ cpuset: "0-3", cpus: 0.5 }, host)).toMatchObject({ cpus: 0.5, cpuset: "0-3" });
    // More CPU time than the set has cannot be used: capped to the set's size.
    expect(resolveLimits({ cpuset: "1,2", cpus: 6 }, host)).toMatchObject({ cpus: 2, cpuset: "1,2" });
    expect(cpusetIds("0-2,5,1")).toEqual([0, 1, 2, 5]);
  });
  it("refuses a cpuset naming CPUs the machine does not have", () => {
    expect(() => resolveLimits({ cpuset: "0-3" }, { cpus: 2, memoryBytes: GB })).toThrow(
      'cpuset "0-3" names CPUs the engine\'s machine does not have (it has CPUs 0-1)',
    );
  });
});

describe("cpusetFor", () => {
  it("pins to the first ceil(cpus) CPUs, at least one, at most the host's", () => {
    expect(cpusetFor(0.5, 4)).toBe("0");
    expect(cpusetFor(1.5, 4)).toBe("0-1");
    expect(cpusetFor(8, 2)).toBe("0-1");
  });
});

describe("memoryFromStats", () => {
  it("subtracts only inactive file pages on cgroup v1, as docker stats does", () => {
    // A v1 memory.stat: `cache` also holds active file pages and tmpfs (shmem), which stay counted.
    const v1 = {
      usage: 50_000_000,
      stats: {
        cache: 20_000_000,
        rss: 29_000_000,
        shmem: 4_000_000,
        active_file: 9_000_000,
        inactive_file: 7_000_000,
        total_cache: 20_000_000,
        total_active_file: 9_000_000,
        total_inactive_file: 7_000_000,
      },
    };
    expect(memoryFromStats(v1)).toBe(43_000_000);
    // total_inactive_file (the hierarchy's) is what counts on v1, not the cgroup's own inactive_file.
    expect(
      memoryFromStats({ usage: 50_000_000, stats: { inactive_file: 1, total_inactive_file: 5_000_000 } }),
    ).toBe(45_000_000);
  });
  it("subtracts inactive_file on cgroup v2", () => {
    const v2 = {
      usage: 10_000_000,
      stats: { anon: 5_000_000, file: 4_500_000, active_file: 500_000, inactive_file: 4_000_000, shmem: 0 },
    };
    expect(memoryFromStats(v2)).toBe(6_000_000);
  });
  it("subtracts nothing it cannot (no stats, or inactive pages not below the usage)", () => {
    expect(memoryFromStats({ usage: 8_000_000 })).toBe(8_000_000);
    expect(memoryFromStats({ usage: 8_000_000, stats: { inactive_file: 9_000_000 } })).toBe(8_000_000);
    // v1 with total_inactive_file not below the usage falls to inactive_file, as the CLI does.
    expect(
      memoryFromStats({
        usage: 8_000_000,
        stats: { total_inactive_file: 8_000_000, inactive_file: 3_000_000 },
      }),
    ).toBe(5_000_000);
  });
});

describe("resourcesFromStats", () => {
  it("reads memory as docker stats does on cgroup v1 and converts CPU to seconds", () => {
    const sample = {
      cpu_stats: { cpu_usage: { total_usage: 2_500_000_000 } },
      memory_stats: {
        usage: 50_000_000,
        stats: { cache: 20_000_000, rss: 29_000_000, total_inactive_file: 12_000_000 },
      },
    };
    expect(resourcesFromStats(sample)).toEqual({ cpuSeconds: 2.5, rssBytes: 38_000_000 });
  });
  it("subtracts inactive_file on cgroup v2", () => {
    const sample = {
      cpu_stats: { cpu_usage: { total_usage: 1_000_000 } },
      memory_stats: { usage: 10_000_000, stats: { inactive_file: 4_000_000, anon: 5_000_000 } },
    };
    expect(resourcesFromStats(sample)).toEqual({ cpuSeconds: 0.001, rssBytes: 6_000_000 });
  });
  it("returns null for a stopped container's empty sample", () => {
    expect(resourcesFromStats({ cpu_stats: { cpu_usage: { total_usage: 0 } }, memory_stats: {} })).toBeNull();
    expect(resourcesFromStats({})).toBeNull();
    // After the exit the CPU counter may stay while memory is gone: no reading, not 0 bytes.
    expect(
      resourcesFromStats({
        read: "0001-01-01T00:00:00Z",
        cpu_stats: { cpu_usage: { total_usage: 5_000_000 } },
        memory_stats: { usage: 0 },
      }),
    ).toBeNull();
  });
  it("keeps the sample's own time, when the engine read the cgroup", () => {
    const sample = {
      read: "2026-11-23T02:13:34.508396324Z",
      cpu_stats: { cpu_usage: { total_usage: 1_000_000_000 } },
      memory_stats: { usage: 8_000_000, stats: { cache: 0 } },
    };
    expect(resourcesFromStats(sample)).toEqual({
      cpuSeconds: 1,
      rssBytes: 8_000_000,
      at: Date.parse("2026-11-23T02:13:34.508Z"),
    });
  });
});

describe("exitInfoFromState", () => {
  it("names the signal of a 128+n exit code and keeps the OOM flag", () => {
    expect(exitInfoFromState({ ExitCode: 137, OOMKilled: true })).toEqual({
      exitCode: 137,
      signal: "SIGKILL",
      oomKilled: true,
    });
    expect(exitInfoFromState({ ExitCode: 0, OOMKilled: false })).toEqual({
      exitCode: 0,
      signal: null,
      oomKilled: false,
    });
  });
});

describe("isOrphan", () => {
  const self = { hostId: "lab-1", pid: 100, instance: "me" };
  // pid 200 runs, started at tick 5000; pid 400 runs too, but is a process that started later.
  const alive = (pid: number, start: string | null) =>
    pid === 100 || (pid === 200 && (start === null || start === "5000")) || (pid === 400 && start === null);
  const labels = (owner: string, instance = "other") => ({
    [LABEL_OWNER]: owner,
    [LABEL_INSTANCE]: instance,
  });

  it("takes containers of a dead worker on this host", () => {
    expect(isOrphan(labels("lab-1:300"), self, alive)).toBe(true);
  });
  it("leaves containers of a live worker and of other hosts", () => {
    expect(isOrphan(labels("lab-1:200"), self, alive)).toBe(false);
    expect(isOrphan(labels("lab-2:300"), self, alive)).toBe(false);
    expect(isOrphan({}, self, alive)).toBe(false);
  });
  it("tells its own containers from those of an earlier worker with the same pid", () => {
    expect(isOrphan(labels("lab-1:100", "me"), self, alive)).toBe(false);
    expect(isOrphan(labels("lab-1:100", "before-restart"), self, alive)).toBe(true);
  });
  it("tells a live worker from an unrelated process that reuses its pid", () => {
    expect(isOrphan(labels("lab-1:200@5000"), self, alive)).toBe(false);
    expect(isOrphan(labels("lab-1:200@4000"), self, alive)).toBe(true);
    expect(isOrphan(labels("lab-1:400@1234"), self, alive)).toBe(true);
    expect(isOrphan(labels("lab-1:300@1234"), self, alive)).toBe(true);
  });
  it("handles host ids that contain colons", () => {
    expect(isOrphan(labels("a:b:300"), { ...self, hostId: "a:b" }, alive)).toBe(true);
  });
});

/**
 * An engine stand-in for one server container: the container's calls are recorded, and each test
 * replaces the ones it breaks. `exit` answers the container's pending wait, as the engine does at its exit.
 */
function fakeEngine(overrides: Record<string, (...args: never[]) => unknown> = {}) {
  const calls: string[] = [];
  let exit: (status: { StatusCode: number }) => void = () => undefined;
  const state = { Running: true, ExitCode: 0, OOMKilled: false, FinishedAt: "" };
  const container = {
    id: "c0ffee",
    start: async () => undefined,
    wait: () =>
      new Promise((resolve) => {
        exit = resolve;
      }),
    // An idle server's output: a stream that stays open while it runs.
    logs: async () => new PassThrough(),
    stats: () => new Promise(() => undefined),
    inspect: async () => ({ State: state }),
    stop: async () => {
      calls.push("stop");
      Object.assign(state, { Running: false, ExitCode: 0 });
      exit({ StatusCode: 0 });
    },
    kill: async (options: { signal: string }) => {
      calls.push(`kill ${options.signal}`);
      Object.assign(state, { Running: false, ExitCode: 137 });
      exit({ StatusCode: 137 });
    },
    remove: async (options: { force?: boolean }) => {
      calls.push(`remove force=${options.force === true}`);
    },
    ...overrides,
  };
  const docker = {
    // No socketPath: an engine elsewhere, so no /proc/vmstat reading.
    modem: { demuxStream: () => undefined },
    info: async () => ({ NCPU: 2, MemTotal: 4 * GB }),
    getImage: () => ({ inspect: async () => ({ Id: "sha256:feed" }) }),
    createContainer: async () => container,
  };
  const driver = createDockerDriver({
    docker: docker as never,
    hostId: "lab-1",
    imageFor: () => "perflab/server-fake:1",
    exitTimeoutMs: 100,
  });
  const server = {
    name: "fake",
    dir: "/nonexistent",
    build: { inputs: [] },
    start: { env: {} },
    mcpPath: "/mcp",
  };
  const start = () => driver.start({ server: server as never, cellId: "cell-1", port: 4000, env: {} });
  return { calls, state, start };
}

describe("the docker driver when the engine fails it", () => {
  it("notes a log stream that fails while the server runs, and keeps running the cell", async () => {
    // Without a handler the rejection is unhandled: Node ends the worker, and vitest fails the run.
    const engine = fakeEngine({
      logs: async () => {
        throw new Error("connect ECONNRESET 10.0.0.2:2375");
      },
    });
    const running = await engine.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(running.logTail()).toContain("[perflab] log stream failed: connect ECONNRESET 10.0.0.2:2375");
    expect(await running.stop(1_000)).toEqual({ exitCode: 0, signal: null, oomKilled: false });
  });

  it("notes a log stream that breaks while the server runs", async () => {
    const stream = new PassThrough();
    const running = await fakeEngine({ logs: async () => stream }).start();
    stream.destroy(new Error("socket hang up"));
    await new Promise((r) => setTimeout(r, 20));
    expect(running.logTail()).toContain("[perflab] log stream failed: socket hang up");
    await running.stop(1_000);
  });

  it("kills and removes a container the engine failed to stop, then names the failure", async () => {
    const engine = fakeEngine({
      stop: async () => {
        engine.calls.push("stop");
        throw Object.assign(
          new Error(
            "(HTTP code 500) server error - tried to kill container, but did not receive an exit event",
          ),
          { statusCode: 500 },
        );
      },
    });
    const running = await engine.start();
    await expect(running.stop(1_000)).rejects.toThrow(
      "stopping container c0ffee failed: (HTTP code 500) server error - tried to kill container, but did not receive an exit event (killed and removed it instead)",
    );
    expect(engine.calls).toEqual(["stop", "kill SIGKILL", "remove force=true"]);
    expect(await running.exited).toEqual({ exitCode: 137, signal: "SIGKILL", oomKilled: false });
    expect(running.logTail()).toContain("[perflab] stopping container c0ffee failed");
  });

  it("names both failures when the container cannot be removed either", async () => {
    const engine = fakeEngine({
      stop: async () => {
        throw new Error("socket hang up");
      },
      kill: async () => {
        throw Object.assign(new Error("(HTTP code 500) server error"), { statusCode: 500 });
      },
      remove: async () => {
        throw Object.assign(new Error("(HTTP code 500) removal failed"), { statusCode: 500 });
      },
    });
    const running = await engine.start();
    await expect(running.stop(1_000)).rejects.toThrow(
      "stopping container c0ffee failed: socket hang up; removing container c0ffee failed: (HTTP code 500) removal failed",
    );
    expect(running.logTail()).toContain(
      "[perflab] killing container c0ffee failed: (HTTP code 500) server error",
    );
  });

  it("reads the exit from the container's state when the engine's wait never answers", async () => {
    // A dropped connection to a remote engine: the wait neither resolves nor fails.
    const engine = fakeEngine({ wait: () => new Promise(() => undefined) });
    const running = await engine.start();
    const exit = await running.stop(1_000);
    expect(exit).toEqual({ exitCode: 0, signal: null, oomKilled: false });
    expect(await running.exited).toEqual(exit);
    expect(engine.calls).toEqual(["stop", "remove force=true"]);
    expect(running.logTail()).toContain(
      "the engine did not report the exit of container c0ffee within 100 ms",
    );
  }, 5_000);
});

describe("watchStats", () => {
  it("gives no reading, rather than waiting for ever, when the engine does not answer a stats request", async () => {
    // Neither the stream nor the one-shot request is ever answered.
    const container = { stats: () => new Promise(() => undefined) };
    const stats = watchStats(container as never, { requestTimeoutMs: 100 });
    const began = Date.now();
    expect(await stats.latest()).toBeNull();
    expect(Date.now() - began).toBeLessThan(1_000);
    stats.close();
  });
});

it("registers as the worker's docker driver without contacting the engine", () => {
  const driver: Driver = createDockerDriver({ hostId: "lab-1" });
  expect(driver.id).toBe("docker");
});
