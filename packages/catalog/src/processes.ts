import { readFileSync } from "node:fs";

/**
 * When a process started, in clock ticks since boot (/proc/<pid>/stat field 22), or null where
 * /proc cannot say (another pid namespace). With the pid it names one process for good: a pid
 * reused by an unrelated process has another start time.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process has exited but is not reaped yet: a zombie keeps its pid and start time. */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

/**
 * Whether the process named by (pid, start time) still runs: the pid is live, is not a zombie
 * (whatever adopted an orphan may reap it late), and is still that process.
 */
export function processAlive(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (exited(pid)) return false;
  if (start === null) return true;
  const now = processStartTime(pid);
  return now === null || now === start;
}
