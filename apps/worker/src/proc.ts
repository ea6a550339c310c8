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

/** Busy and total jiffies of the whole machine, for host CPU %. */
export async function hostCpuTimes(): Promise<{ busy: number; total: number }> {
  const line = (await readFile("/proc/stat", "utf8")).split("\n")[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
