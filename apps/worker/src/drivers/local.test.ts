import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { CatalogEntry } from "@perflab/catalog";
import { describe, expect, it } from "vitest";
import { localDriver } from "./local.ts";
import { ownerAlive } from "./orphans.ts";

/** Process group and session of a live process, from /proc. */
async function groupOf(pid: number): Promise<{ pgrp: number; session: number } | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pgrp: Number(rest[2]), session: Number(rest[3]) };
  } catch {
    return null;
  }
}

/** A "server" that forks a child ignoring SIGTERM and prints both pids. */
const server = (command: string[]): CatalogEntry =>
  ({
    name: "probe",
    base: "probe",
    variant: null,
    description: null,
    dir: process.cwd(),
    start: { command, env: {} },
  }) as unknown as CatalogEntry;

const twoProcesses = [
  "sh",
  "-c",
  "sh -c 'trap \"\" TERM; echo child $$; while :; do sleep 0.1; done' & echo leader $$; wait",
];

async function pidsFrom(logTail: () => string): Promise<{ leader: number; child: number }> {
  for (let i = 0; i < 100; i++) {
    const leader = /leader (\d+)/.exec(logTail())?.[1];
    const child = /child (\d+)/.exec(logTail())?.[1];
    if (leader && child) return { leader: Number(leader), child: Number(child) };
    await sleep(50);
  }
  throw new Error(`no pids in the log: ${logTail()}`);
}

describe("local driver", () => {
  it("starts the server in a process group of its own inside the worker's session, and stops all of it", async () => {
    const running = await localDriver.start({
      server: server(twoProcesses),
      cellId: "c1",
      port: 1,
      env: {},
    });
    const { leader, child } = await pidsFrom(running.logTail);
    const own = (await groupOf(process.pid))!;
    const leaderGroup = (await groupOf(leader))!;
    // Its own group (signals and sampling cover it and its children)…
    expect(leaderGroup.pgrp).toBe(leader);
    expect(leaderGroup.pgrp).not.toBe(own.pgrp);
    expect((await groupOf(child))!.pgrp).toBe(leader);
    // …but not a session of its own: on Linux a session is a CPU scheduling group (autogroup).
    expect(leaderGroup.session).toBe(own.session);
    expect((await running.resources())?.rssBytes).toBeGreaterThan(0);

    // The child ignores SIGTERM: the group's SIGKILL after the grace period ends it too.
    const exit = await running.stop(300);
    expect(exit.signal ?? exit.exitCode).not.toBeNull();
    await expect.poll(() => ownerAlive(child, null), { timeout: 5_000 }).toBe(false);
    expect(ownerAlive(leader, null)).toBe(false);
  });

  it("ends a server whose command does not exist with its reason in the log tail", async () => {
    const running = await localDriver.start({
      server: server(["./no-such-server"]),
      cellId: "c2",
      port: 1,
      env: {},
    });
    const exit = await running.exited;
    expect(exit.exitCode).not.toBe(0);
    expect(running.logTail()).toMatch(/cannot start \.\/no-such-server: No such file or directory/);
  });

  it("says a stop came after the server's own exit, even one Node had not reported yet", async () => {
    const running = await localDriver.start({
      server: server(["sh", "-c", "exit 3"]),
      cellId: "c3",
      port: 1,
      env: {},
    });
    // The event loop held until the server has exited (a zombie child of this process): its exit
    // is not reported when stop() comes.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const zombieChild = () => {
      // Any thread may have forked it (a test may run in a worker thread).
      const children = readdirSync(`/proc/${process.pid}/task`)
        .map((task) => readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8"))
        .join(" ");
      return children
        .split(/\s+/)
        .filter(Boolean)
        .some((pid) => {
          try {
            const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
            return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
          } catch {
            return false;
          }
        });
    };
    for (let waited = 0; !zombieChild() && waited < 10_000; waited += 20) Atomics.wait(pause, 0, 0, 20);
    expect(zombieChild()).toBe(true);
    const exit = await running.stop(1_000);
    expect(exit).toMatchObject({ exitCode: 3, beforeStop: true });
  });

  it("does not say so of a server perflab's stop ended", async () => {
    const running = await localDriver.start({
      server: server(["sh", "-c", "echo up; exec sleep 30"]),
      cellId: "c4",
      port: 1,
      env: {},
    });
    await expect.poll(() => running.logTail(), { timeout: 5_000 }).toMatch(/up/);
    const exit = await running.stop(1_000);
    expect(exit.signal).toBe("SIGTERM");
    expect(exit.beforeStop).toBeUndefined();
  });
});
