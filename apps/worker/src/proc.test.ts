import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  cpuTimesOf,
  hostCpuTimes,
  type ProcSource,
  parseCpuList,
  processGroupReader,
  procSource,
  sysconf,
} from "./proc.ts";

const STAT = [
  "cpu  400 0 100 1500 0 0 0 0 0 0",
  "cpu0 100 0 0 900 0 0 0 0 0 0",
  "cpu1 100 0 50 350 0 0 0 0 0 0",
  "cpu2 200 0 50 250 0 0 0 0 0 0",
  "intr 1 2 3",
].join("\n");

describe("parseCpuList", () => {
  it("reads ranges and single CPUs", () => {
    expect([...parseCpuList("0-1")!]).toEqual([0, 1]);
    expect([...parseCpuList("0-2,5,7-8\n")!]).toEqual([0, 1, 2, 5, 7, 8]);
  });

  it("refuses what it cannot read", () => {
    expect(parseCpuList("")).toBeNull();
    expect(parseCpuList("a-b")).toBeNull();
    expect(parseCpuList("3-1")).toBeNull();
  });
});

describe("cpuTimesOf", () => {
  it("sums the allowed CPUs' lines only", () => {
    // cpu1 + cpu2: busy 150 + 250, total 500 + 500.
    expect(cpuTimesOf(STAT, new Set([1, 2]))).toEqual({ busy: 400, total: 1000 });
    expect(cpuTimesOf(STAT, new Set([0]))).toEqual({ busy: 100, total: 1000 });
  });

  it("counts iowait as idle", () => {
    expect(cpuTimesOf("cpu  10 0 0 80 10 0 0 0 0 0\ncpu0 10 0 0 80 10 0 0 0 0 0", new Set([0]))).toEqual({
      busy: 10,
      total: 100,
    });
  });

  it("does not count guest time twice: the kernel already counts it in user and nice", () => {
    // A host running a VM: 30 of user's 60 jiffies and 5 of nice's 10 were the guest's.
    expect(cpuTimesOf("cpu  60 10 10 100 20 0 0 0 30 5", null)).toEqual({ busy: 80, total: 200 });
  });

  it("falls back to the whole machine without a list, or when a CPU has no line", () => {
    expect(cpuTimesOf(STAT, null)).toEqual({ busy: 500, total: 2000 });
    expect(cpuTimesOf(STAT, new Set([1, 9]))).toEqual({ busy: 500, total: 2000 });
  });
});

describe("hostCpuTimes", () => {
  it("reads this machine's CPUs that the worker may use", async () => {
    const first = await hostCpuTimes();
    expect(first.total).toBeGreaterThan(0);
    expect(first.busy).toBeGreaterThanOrEqual(0);
    expect(first.busy).toBeLessThanOrEqual(first.total);
  });
});

/** One /proc as a reading sees it: the uptime, and each process's group, start time and CPU. */
type Moment = {
  uptime: number;
  procs: {
    pid: number;
    pgrp?: number;
    start: number;
    cpu: number;
    parent?: number;
    /** Resident bytes: private and shared (1,000 private when not given). */
    memory?: { privateBytes: number; sharedBytes: number } | null;
  }[];
};

/** A /proc that moves to the next moment at each reading's first call (uptime). */
function fakeProc(moments: Moment[]): ProcSource {
  let i = -1;
  const now = () => moments[Math.min(i, moments.length - 1)]!;
  return {
    uptime: async () => moments[++i]?.uptime ?? now().uptime,
    pids: async () => now().procs.map((p) => p.pid),
    children: async (pid) =>
      now()
        .procs.filter((p) => p.parent === pid)
        .map((p) => p.pid),
    stat: async (pid) => {
      const p = now().procs.find((q) => q.pid === pid);
      const memory = p?.memory === undefined ? { privateBytes: 1_000, sharedBytes: 0 } : p.memory;
      const rssBytes = memory ? memory.privateBytes + memory.sharedBytes : 1_000;
      return p ? { pid, pgrp: p.pgrp ?? 100, cpuSeconds: p.cpu, rssBytes, startSeconds: p.start } : null;
    },
    memory: async (pid) => {
      const p = now().procs.find((q) => q.pid === pid);
      return p?.memory === undefined ? { privateBytes: 1_000, sharedBytes: 0 } : p.memory;
    },
  };
}

describe("processGroupReader", () => {
  it("adds each member's own CPU since the last reading, however members join and leave", async () => {
    const group = processGroupReader(
      100,
      fakeProc([
        // The leader and a worker; a process of another group is not counted.
        {
          uptime: 1000,
          procs: [
            { pid: 100, start: 900, cpu: 50 },
            { pid: 101, start: 950, cpu: 20, parent: 100 },
            { pid: 7, pgrp: 7, start: 10, cpu: 999 },
          ],
        },
        // A worker forked since the last reading: all of its CPU is this second's.
        {
          uptime: 1001,
          procs: [
            { pid: 100, start: 900, cpu: 50.5 },
            { pid: 101, start: 950, cpu: 20.3, parent: 100 },
            { pid: 102, start: 1000.5, cpu: 0.1, parent: 100 },
          ],
        },
        // 101 exited with 20.3 s of CPU: the others' second is still counted, nothing is taken off.
        {
          uptime: 1002,
          procs: [
            { pid: 100, start: 900, cpu: 51 },
            { pid: 102, start: 1000.5, cpu: 0.6, parent: 100 },
          ],
        },
        // 103 joined, started long before the last reading with 30 s of CPU: it counts from now on,
        // not as 30 s in one second.
        {
          uptime: 1003,
          procs: [
            { pid: 100, start: 900, cpu: 51.5 },
            { pid: 102, start: 1000.5, cpu: 1.1, parent: 100 },
            { pid: 103, start: 500, cpu: 30, parent: 100 },
          ],
        },
        // 102 exited and its pid went to a new process (another start time): a new member.
        {
          uptime: 1004,
          procs: [
            { pid: 100, start: 900, cpu: 52 },
            { pid: 102, start: 1003.5, cpu: 0.2, parent: 100 },
            { pid: 103, start: 500, cpu: 30.4, parent: 100 },
          ],
        },
        // Nobody is left.
        { uptime: 1005, procs: [] },
      ]),
    );
    const cpu: number[] = [];
    for (let i = 0; i < 5; i++) cpu.push((await group.read())!.cpuSeconds);
    const seconds = cpu.slice(1).map((c, i) => Number((c - cpu[i]!).toFixed(6)));
    expect(cpu[0]).toBeCloseTo(70, 6);
    expect(seconds).toEqual([0.9, 1, 1, 0.5 + 0.2 + 0.4]);
    expect(await group.read()).toBeNull();
  });

  it("counts the pages a group's members share once: each one's private pages, plus the most shared", async () => {
    const mb = 2 ** 20;
    const group = processGroupReader(
      100,
      fakeProc([
        // One process: its RSS as the kernel has it, whatever it shares with others.
        {
          uptime: 1,
          procs: [{ pid: 100, start: 0, cpu: 0, memory: { privateBytes: 8 * mb, sharedBytes: 36 * mb } }],
        },
        // Two workers of 44 MB, 36 MB of each shared, and their primary: 7 + 8 + 8 private, 36 shared.
        {
          uptime: 2,
          procs: [
            { pid: 100, start: 0, cpu: 0, memory: { privateBytes: 7 * mb, sharedBytes: 30 * mb } },
            {
              pid: 101,
              start: 1,
              cpu: 0,
              parent: 100,
              memory: { privateBytes: 8 * mb, sharedBytes: 36 * mb },
            },
            {
              pid: 102,
              start: 1,
              cpu: 0,
              parent: 100,
              memory: { privateBytes: 8 * mb, sharedBytes: 36 * mb },
            },
          ],
        },
        // A member whose split cannot be read counts whole.
        {
          uptime: 3,
          procs: [
            { pid: 100, start: 0, cpu: 0, memory: { privateBytes: 7 * mb, sharedBytes: 30 * mb } },
            { pid: 101, start: 1, cpu: 0, parent: 100, memory: null },
          ],
        },
      ]),
    );
    expect((await group.read())!.rssBytes).toBe(44 * mb);
    expect((await group.read())!.rssBytes).toBe((7 + 8 + 8 + 36) * mb);
    expect((await group.read())!.rssBytes).toBe((7 + 30 + 1_000 / mb) * mb);
  });

  it("reads a real group of two processes of one runtime as less than the sum of their RSS", async () => {
    // Each fills 32 MB of its own, then says so.
    const hold = `${process.execPath} -e 'const b = Buffer.alloc(32 * 2 ** 20, 1); console.log("held"); setTimeout(() => b, 60_000)'`;
    const leader = spawn("sh", ["-c", `${hold} & ${hold} & wait`], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      let said = "";
      await new Promise<void>((resolve) =>
        leader.stdout.setEncoding("utf8").on("data", (d: string) => {
          said += d;
          if (said.split("held").length === 3) resolve();
        }),
      );
      const group = processGroupReader(leader.pid!);
      const reading = (await group.read())!;
      const each = (await Promise.all((await procSource.pids()).map((pid) => procSource.stat(pid)))).filter(
        (s) => s !== null && s.pgrp === leader.pid,
      );
      expect(each).toHaveLength(3); // the shell and both
      const sum = each.reduce((a, s) => a + s!.rssBytes, 0);
      // Node's binary and libraries are mapped by both: counted once, the group is well under the sum…
      expect(reading.rssBytes).toBeLessThan(sum - 10 * 2 ** 20);
      // …and holds both processes' own 32 MB beside one node's runtime.
      expect(reading.rssBytes).toBeGreaterThan(Math.max(...each.map((s) => s!.rssBytes)) + 30 * 2 ** 20);
    } finally {
      process.kill(-leader.pid!, "SIGKILL");
    }
  }, 30_000);

  it("follows a real process group whose busy member exits and another starts", async () => {
    // Each child burns 0.3 s of CPU (not of wall time), so a loaded machine slows it down but
    // cannot shrink what there is to see.
    const busy = `${process.execPath} -e 'const end = 300_000; while (process.cpuUsage().user < end);'`;
    // A group of its own (setsid): one busy child, then after it a second one, then a quiet second
    // in which the group (the shell) is still there to be read.
    const leader = spawn("sh", ["-c", `${busy}; ${busy} & wait; sleep 1`], {
      detached: true,
      stdio: "ignore",
    });
    let done = false;
    const exited = new Promise((r) => leader.once("exit", r)).then(() => {
      done = true;
    });
    const group = processGroupReader(leader.pid!);
    const readings: number[] = [];
    while (!done) {
      const reading = await group.read();
      if (reading) readings.push(reading.cpuSeconds);
      await new Promise((r) => setTimeout(r, 100));
    }
    await exited;
    expect(readings.length).toBeGreaterThan(5);
    // A counter: it never goes back when a member exits.
    for (let i = 1; i < readings.length; i++) expect(readings[i]!).toBeGreaterThanOrEqual(readings[i - 1]!);
    // Both busy children's CPU was seen: 0.3 s each (and Node's start-up on top).
    expect(readings.at(-1)! - readings[0]!).toBeGreaterThan(0.55);
  }, 30_000);

  it("counts the open descriptors of every member of a real group, summed", async () => {
    // A shell that opens three more descriptors, and the sleep it forks inherits them.
    const leader = spawn("sh", ["-c", "exec 3</dev/null 4</dev/null 5</dev/null; sleep 30 & wait"], {
      detached: true,
      stdio: "ignore",
    });
    try {
      const group = processGroupReader(leader.pid!);
      const members = async () =>
        (await Promise.all((await procSource.pids()).map((pid) => procSource.stat(pid)))).filter(
          (s) => s !== null && s.pgrp === leader.pid,
        );
      while ((await members()).length < 2) await new Promise((r) => setTimeout(r, 50));
      const each = await Promise.all((await members()).map((s) => procSource.fds!(s!.pid)));
      expect(each.every((n) => n !== null && n >= 6)).toBe(true);
      expect((await group.read())!.fds).toBe(each.reduce((a, b) => a! + b!, 0));
      // A source that cannot read descriptors makes up no count.
      const blind = processGroupReader(leader.pid!, { ...procSource, fds: undefined });
      expect(await blind.read()).toMatchObject({ fds: null });
    } finally {
      process.kill(-leader.pid!, "SIGKILL");
    }
  }, 30_000);
});

describe("reading a process from /proc", () => {
  it("gives its RSS in bytes as the kernel counts them (the machine's page size, not an assumed one)", async () => {
    const held = Buffer.alloc(64 * 2 ** 20, 1); // touched, so resident
    const stat = await procSource.stat(process.pid);
    const status = await readFile(`/proc/${process.pid}/status`, "utf8");
    const vmRssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    expect(held.length).toBeGreaterThan(0);
    expect(stat).not.toBeNull();
    // Two readings a moment apart of one counter: within a few MB of each other.
    expect(Math.abs(stat!.rssBytes - vmRssKb * 1024)).toBeLessThan(8 * 2 ** 20);
    expect(stat!.rssBytes).toBeGreaterThan(64 * 2 ** 20);
  });

  it("asks getconf once for the machine's constants, with a fallback where it cannot say", () => {
    expect(sysconf("NO_SUCH_PERFLAB_NAME", 7)).toBe(7);
    // A name getconf knows is answered by the machine.
    expect(sysconf("CLK_TCK", 0)).toBeGreaterThan(0);
  });
});
