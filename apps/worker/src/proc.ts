import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * /proc's files are made by the kernel on read and never wait on a disk: read synchronously, each
 * costs microseconds instead of four thread-pool round trips (open, stat, read, close) that wake the
 * worker beside the server it measures (bench/perflab-vs-bare.ts).
 */
const readProcFile = async (path: string) => readFileSync(path, "utf8");
const readProcDir = async (path: string) => readdirSync(path);

/** A `getconf` value of this machine, or `fallback` where getconf is missing or says nothing useful. */
export function sysconf(name: string, fallback: number): number {
  try {
    const value = Number(execFileSync("getconf", [name], { encoding: "utf8", timeout: 5_000 }).trim());
    return Number.isInteger(value) && value > 0 ? value : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on x86-64 and arm64 alike), and
 * the page size of its RSS, which is not one number on arm64 (4, 16 or 64 KiB kernels ship): both
 * asked of the machine once, as `ps` does.
 */
const CLK_TCK = sysconf("CLK_TCK", 100);
const PAGE_SIZE = sysconf("PAGESIZE", 4096);

type ProcStat = {
  pid: number;
  pgrp: number;
  cpuSeconds: number;
  rssBytes: number;
  /** When the process started, in seconds since boot (with its pid, who it is: pids are reused). */
  startSeconds: number;
};

async function readStat(pid: number): Promise<ProcStat | null> {
  try {
    const text = await readProcFile(`/proc/${pid}/stat`);
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(rest[2]);
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    const startTicks = Number(rest[19]);
    const rssPages = Number(rest[21]);
    return {
      pid,
      pgrp,
      cpuSeconds: (utime + stime) / CLK_TCK,
      rssBytes: rssPages * PAGE_SIZE,
      startSeconds: startTicks / CLK_TCK,
    };
  } catch {
    return null;
  }
}

/** A process's resident pages split as /proc/<pid>/smaps_rollup has them: its own, and shared. */
export type MemorySplit = { privateBytes: number; sharedBytes: number };

async function readMemorySplit(pid: number): Promise<MemorySplit | null> {
  try {
    const text = await readProcFile(`/proc/${pid}/smaps_rollup`);
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
    const privateBytes = (kb("Private_Clean") + kb("Private_Dirty")) * 1024;
    const sharedBytes = (kb("Shared_Clean") + kb("Shared_Dirty")) * 1024;
    return Number.isFinite(privateBytes) && Number.isFinite(sharedBytes)
      ? { privateBytes, sharedBytes }
      : null;
  } catch {
    return null;
  }
}

/** What a process group's reading needs from /proc; a test gives a sequence of its own. */
export type ProcSource = {
  /** Every pid on the machine (a scan of /proc). */
  pids(): Promise<number[]>;
  stat(pid: number): Promise<ProcStat | null>;
  /** The pids of a process's children (forked by its main thread), [] where the kernel cannot say. */
  children(pid: number): Promise<number[]>;
  /** Seconds since boot, the clock of `startSeconds`. */
  uptime(): Promise<number>;
  /** Private and shared resident bytes (smaps_rollup), null where the kernel does not say. */
  memory(pid: number): Promise<MemorySplit | null>;
  /** Its open file descriptors (the entries of /proc/<pid>/fd), null where they cannot be read. */
  fds?(pid: number): Promise<number | null>;
};

export const procSource: ProcSource = {
  pids: async () => (await readProcDir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number),
  stat: readStat,
  children: async (pid) => {
    try {
      const text = await readProcFile(`/proc/${pid}/task/${pid}/children`);
      return text.split(" ").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  },
  uptime: async () => Number((await readProcFile("/proc/uptime")).split(" ")[0]),
  memory: readMemorySplit,
  fds: async (pid) => {
    try {
      return (await readProcDir(`/proc/${pid}/fd`)).length;
    } catch {
      return null;
    }
  },
};

const RESCAN_MS = 5_000;

export type GroupReader = {
  /**
   * The group's CPU seconds (a counter that only grows), its current RSS and open descriptors (the
   * members' summed; null where none could be read); null once no member is left.
   */
  read(): Promise<{ cpuSeconds: number; rssBytes: number; fds: number | null } | null>;
};

/**
 * CPU seconds and RSS of every live process of a process group (cluster workers included). The
 * members are found by a scan of /proc every few seconds, and the children of known members at
 * every reading; in between, members are read directly, so sampling costs a few reads per second
 * instead of a scan of every process.
 *
 * The CPU is a counter kept per reader: each reading adds every member's own CPU since the last
 * reading (kept per pid and start time), never the difference of two sums over different members,
 * which would put a joining process's whole past CPU into one second and take a leaving one's out of
 * another. A process seen for the first time adds all its CPU if it started after the previous
 * reading (all of it was used since), else only what it uses from now on (its CPU before this reading
 * was used in seconds already reported, or before the group was watched). A process that exited adds
 * nothing more: what it used since its last reading is not readable any more.
 *
 * The RSS of a group of one is the process's. Several processes (a cluster's workers, a shell and
 * its server) map many of the same pages (the runtime's binary and libraries, what a fork
 * inherited), which a sum of their RSS would count once per process: a 2-worker Node cluster of
 * 44 MB processes, 36 MB of each shared, read 131 MB for a footprint near 60. Their RSS is then
 * every member's private pages plus the largest member's shared ones: the shared pages once (as a
 * container's memory counts them), at most a little under where members share different pages.
 * Reading that split (smaps_rollup) costs a few ms a process, so it is read when the members change
 * and every few seconds: in between, the members' RSS less the overlap last read (shared pages,
 * the runtime's, change slowly; a heap's growth is private and shows at once).
 */
export function processGroupReader(pgid: number, source: ProcSource = procSource): GroupReader {
  let members: number[] = [];
  let scannedAt = Number.NEGATIVE_INFINITY;
  let previous: { uptime: number; cpu: Map<number, { startSeconds: number; cpuSeconds: number }> } | null =
    null;
  let cpuSeconds = 0;
  let overlap: { members: string; at: number; bytes: number } | null = null;
  /** The group's resident memory: the members' RSS less the pages they share counted more than once. */
  const groupRss = async (stats: ProcStat[]) => {
    const sum = stats.reduce((total, stat) => total + stat.rssBytes, 0);
    if (stats.length === 1) return sum;
    const who = stats.map((stat) => `${stat.pid}@${stat.startSeconds}`).join(",");
    if (!overlap || overlap.members !== who || Date.now() - overlap.at > RESCAN_MS) {
      const splits = (await Promise.all(stats.map((stat) => source.memory(stat.pid)))).filter(
        (split): split is MemorySplit => split !== null,
      );
      const shared = splits.map((split) => split.sharedBytes);
      const bytes = shared.length < 2 ? 0 : shared.reduce((a, b) => a + b, 0) - Math.max(...shared);
      overlap = { members: who, at: Date.now(), bytes };
    }
    return Math.max(0, sum - overlap.bytes);
  };
  const groupFds = async (stats: ProcStat[]) => {
    if (!source.fds) return null;
    const counts = (await Promise.all(stats.map((stat) => source.fds!(stat.pid)))).filter(
      (n): n is number => n !== null,
    );
    return counts.length ? counts.reduce((a, b) => a + b, 0) : null;
  };
  return {
    async read() {
      const uptime = await source.uptime();
      let candidates: number[];
      if (Date.now() - scannedAt > RESCAN_MS) {
        candidates = await source.pids();
        scannedAt = Date.now();
      } else {
        const children = await Promise.all(members.map((pid) => source.children(pid)));
        candidates = [...new Set([...members, ...children.flat()])];
      }
      const stats = (await Promise.all(candidates.map((pid) => source.stat(pid)))).filter(
        (stat): stat is ProcStat => stat !== null && stat.pgrp === pgid,
      );
      if (stats.length === 0) {
        // Not made yet, or gone: the next reading scans again.
        members = [];
        scannedAt = Number.NEGATIVE_INFINITY;
        return null;
      }
      members = stats.map((stat) => stat.pid);
      const rssBytes = await groupRss(stats);
      const cpu = new Map<number, { startSeconds: number; cpuSeconds: number }>();
      for (const stat of stats) {
        cpu.set(stat.pid, { startSeconds: stat.startSeconds, cpuSeconds: stat.cpuSeconds });
        if (!previous) {
          // The first reading: the counter starts at the group's CPU so far.
          cpuSeconds += stat.cpuSeconds;
          continue;
        }
        const before = previous.cpu.get(stat.pid);
        if (before && before.startSeconds === stat.startSeconds) {
          cpuSeconds += Math.max(0, stat.cpuSeconds - before.cpuSeconds);
        } else if (stat.startSeconds >= previous.uptime) {
          cpuSeconds += stat.cpuSeconds;
        }
      }
      previous = { uptime, cpu };
      return { cpuSeconds, rssBytes, fds: await groupFds(stats) };
    },
  };
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
    readProcFile("/proc/stat"),
    readProcFile("/proc/self/status").catch(() => ""),
  ]);
  const allowed = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
  return cpuTimesOf(stat, allowed ? parseCpuList(allowed) : null);
}
