/** What processes cost, from /proc: trees, RSS, CPU seconds and wake-ups (context switches). */
import { readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS = 100;

/** `root` and every process under it, found through each process's parent in /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

export function rssBytes(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/**
 * Samples the processes' summed RSS every 20 ms until stopped: the value before and the peak. Past
 * `ceiling` it calls `kill` once (a shared machine; the caller reports what was killed).
 */
export function sampleRss(pids: number[], ceiling: number, kill: () => void) {
  const before = rssBytes(pids);
  let peak = before;
  let tripped = false;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pids));
    if (peak > ceiling && !tripped) {
      tripped = true;
      kill();
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      if (!tripped) peak = Math.max(peak, rssBytes(pids));
      return { before, peak, tripped };
    },
  };
}

/** One process's counters: CPU seconds (user + system, its threads included) and context switches. */
export type ProcCounters = { name: string; cpuSeconds: number; voluntary: number; involuntary: number };

/** Threads' switches add up in the process's /proc/<pid>/task/<tid>/status; the process's own are its main thread's. */
function switches(pid: number): { voluntary: number; involuntary: number } {
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
  }
  return { voluntary, involuntary };
}

/** The counters of a process, or null once it is gone. */
export function procCounters(pid: number): ProcCounters | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuSeconds = (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS;
    return { name, cpuSeconds, ...switches(pid) };
  } catch {
    return null;
  }
}

export type Snapshot = Map<number, ProcCounters>;

export function snapshot(pids: number[]): Snapshot {
  const taken: Snapshot = new Map();
  for (const pid of pids) {
    const counters = procCounters(pid);
    if (counters) taken.set(pid, counters);
  }
  return taken;
}

/** Per-group cost between two snapshots: a process that began in between counts from zero. */
export type GroupCost = {
  group: string;
  processes: number;
  cpuSeconds: number;
  voluntary: number;
  involuntary: number;
};

export function costBetween(
  before: Snapshot,
  after: Snapshot,
  groupOf: (pid: number, counters: ProcCounters) => string,
): GroupCost[] {
  const groups = new Map<string, GroupCost>();
  for (const [pid, end] of after) {
    const start = before.get(pid) ?? { name: end.name, cpuSeconds: 0, voluntary: 0, involuntary: 0 };
    const group = groupOf(pid, end);
    const cost = groups.get(group) ?? { group, processes: 0, cpuSeconds: 0, voluntary: 0, involuntary: 0 };
    cost.processes++;
    cost.cpuSeconds += end.cpuSeconds - start.cpuSeconds;
    cost.voluntary += end.voluntary - start.voluntary;
    cost.involuntary += end.involuntary - start.involuntary;
    groups.set(group, cost);
  }
  return [...groups.values()].sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}
