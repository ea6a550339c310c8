import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
  CELL_ENV,
  OWNER_ENV,
  ownerAlive,
  ownerMarker,
  parseOwner,
  processStartTime,
  reapOrphanProcesses,
} from "./orphans.ts";

describe("owner markers", () => {
  it("name this worker by host, pid and start time, and parse back", () => {
    const marker = ownerMarker("lab-1");
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(marker).toBe(`lab-1:${process.pid}@${start}`);
    expect(parseOwner(marker)).toEqual({ hostId: "lab-1", pid: process.pid, start });
    expect(parseOwner("a:b:42")).toEqual({ hostId: "a:b", pid: 42, start: null });
    expect(parseOwner("no-pid")).toBeNull();
    expect(parseOwner("lab-1:x@1")).toBeNull();
  });

  it("count a live pid as the owner only while it is the same process", () => {
    const start = processStartTime(process.pid)!;
    expect(ownerAlive(process.pid, start)).toBe(true);
    expect(ownerAlive(process.pid, null)).toBe(true);
    // The same pid with another start time: the pid was reused, the owner is gone.
    expect(ownerAlive(process.pid, String(Number(start) + 1))).toBe(false);
    const exited = spawnSync("true").pid!;
    expect(ownerAlive(exited, null)).toBe(false);
  });

  it("count an exited process that nobody has reaped (a zombie) as gone", async () => {
    // A parent that forks a child which exits at once, and never waits for it: the child stays a zombie.
    const script =
      "import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(5)";
    const parent = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout!.once("data", (d) => resolve(String(d)))),
      );
      await new Promise((r) => setTimeout(r, 200));
      const start = processStartTime(pid);
      expect(start, "the zombie keeps its /proc entry").not.toBeNull();
      expect(ownerAlive(pid, start)).toBe(false);
    } finally {
      parent.kill("SIGKILL");
    }
  });
});

describe("reaping processes left by dead workers", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });
  const sleeper = (env: Record<string, string>) => {
    const child = spawn("sleep", ["600"], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: "ignore" });
    children.push(child);
    return new Promise<ChildProcess>((resolve) => child.once("spawn", () => resolve(child)));
  };
  const exited = (child: ChildProcess) =>
    new Promise<string | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));

  it("kills a dead owner's processes of this host, naming their cells, and leaves live owners' and other hosts' alone", async () => {
    const hostId = `reap-test-${process.pid}`;
    const deadPid = spawnSync("true").pid!;
    const orphan = await sleeper({ [OWNER_ENV]: `${hostId}:${deadPid}@1`, [CELL_ENV]: "cell-orphan" });
    // A fixture child: no cell, still reaped.
    const orphanFixture = await sleeper({ [OWNER_ENV]: `${hostId}:${deadPid}@1` });
    const live = await sleeper({ [OWNER_ENV]: ownerMarker(hostId), [CELL_ENV]: "cell-live" });
    const otherHost = await sleeper({
      [OWNER_ENV]: `elsewhere-${process.pid}:${deadPid}@1`,
      [CELL_ENV]: "x",
    });
    const orphanGone = exited(orphan);
    const fixtureGone = exited(orphanFixture);

    expect(await reapOrphanProcesses(hostId)).toEqual(["cell-orphan"]);
    expect(await orphanGone).toBe("SIGKILL");
    expect(await fixtureGone).toBe("SIGKILL");
    expect([live.exitCode, live.signalCode, otherHost.exitCode, otherHost.signalCode]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    // Nothing left to do: a second sweep finds nothing.
    expect(await reapOrphanProcesses(hostId)).toEqual([]);
  });
});
