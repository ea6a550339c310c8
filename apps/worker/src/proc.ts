import { readdir, readFile } from "node:fs/promises";

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux perflab supports. */
const CLK_TCK = 100;
const PAGE_SIZE = 4096;

type ProcStat = { pid: number; pgrp: number; cpuSeconds: number; rssBytes: number };

async function readStat(pid: number): Promise<ProcStat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(rest[2]);
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    const rssPages = Number(rest[21]);
    return { pid, pgrp, cpuSeconds: (utime + stime) / CLK_TCK, rssBytes: rssPages * PAGE_SIZE };
  } catch {
    return null;
  }
}

const RESCAN_MS = 5_000;
const groupMembers = new Map<number, { pids: number[]; scannedAt: number }>();

/**
 * CPU seconds and RSS summed over every live process of a process group (cluster workers
 * included). The group's members are found by a scan of /proc every few seconds and read directly
 * in between, so sampling costs a few reads per second instead of a scan of every process.
 */
export async function processGroupResources(
  pgid: number,
): Promise<{ cpuSeconds: number; rssBytes: number } | null> {
  let members = groupMembers.get(pgid);
  if (!members || Date.now() - members.scannedAt > RESCAN_MS) {
    const all = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
    const stats = await Promise.all(all.map(readStat));
    members = { pids: stats.filter((s) => s?.pgrp === pgid).map((s) => s!.pid), scannedAt: Date.now() };
    if (members.pids.length === 0) groupMembers.delete(pgid);
    else groupMembers.set(pgid, members);
  }
  const stats = await Promise.all(members.pids.map(readStat));
  let cpuSeconds = 0;
  let rssBytes = 0;
  let found = false;
  for (const stat of stats) {
    if (!stat || stat.pgrp !== pgid) continue;
    found = true;
    cpuSeconds += stat.cpuSeconds;
    rssBytes += stat.rssBytes;
  }
  if (!found) groupMembers.delete(pgid);
  return found ? { cpuSeconds, rssBytes } : null;
}

export async function processResources(
  pid: number,
): Promise<{ cpuSeconds: number; rssBytes: number } | null> {
  const stat = await readStat(pid);
  return stat ? { cpuSeconds: stat.cpuSeconds, rssBytes: stat.rssBytes } : null;
}

/** The CPU numbers of a list like /proc/self/status's Cpus_allowed_list ("0-3,6"); null if unreadable. */
export function parseCpuList(list: string): Set<number> | null {
  const cpus = new Set<number>();
  for (const part of list.trim().split(",")) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!match) return null;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) return null;
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return cpus.size > 0 ? cpus : null;
}

/**
 * Busy and total jiffies from /proc/stat: summed over the `cpuN` lines of `cpus` when given and all
 * found, else the whole machine's `cpu` line. Idle is idle plus iowait; guest time is not added
 * twice.
 */
export function cpuTimesOf(stat: string, cpus: Set<number> | null): { busy: number; total: number } {
  const times = (line: string) => {
    // user nice system idle iowait irq softirq steal guest guest_nice: guest time is already
    // inside user (and guest_nice inside nice), so the first eight columns are the whole.
    const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  };
  const lines = stat.split("\n");
  if (cpus) {
    const own = lines.filter((line) => {
      const match = /^cpu(\d+)\s/.exec(line);
      return match !== null && cpus.has(Number(match[1]));
    });
    if (own.length === cpus.size) {
      return own.map(times).reduce((a, b) => ({ busy: a.busy + b.busy, total: a.total + b.total }));
    }
  }
  return times(lines[0]!);
}

/**
 * Busy and total jiffies of the CPUs this worker may run on (its affinity, which the servers and k6
 * it starts inherit), for host CPU %: what else ran on the cores the cell used. On a machine whose
 * other cores are kept for other work (`taskset -c 0-1 ./scripts/up.sh`), their load does not count,
 * and the figure is a share of the same cores as the machine's `cores` (os.availableParallelism()).
 */
export async function hostCpuTimes(): Promise<{ busy: number; total: number }> {
  const [stat, status] = await Promise.all([
    readFile("/proc/stat", "utf8"),
    readFile("/proc/self/status", "utf8").catch(() => ""),
  ]);
  const allowed = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
  return cpuTimesOf(stat, allowed ? parseCpuList(allowed) : null);
}
