/**
 * What the quick-start stack left running if it died without stopping its services (kill -9, a
 * crash): it records each service's pid in `<data dir>/stack.json`, and the next start stops the
 * ones still alive before it starts its own, instead of failing on Postgres's lock file or a busy
 * port. A pid is only signalled while its process start time is the recorded one, so a pid the
 * kernel has since given to another process is left alone.
 */
import { readFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { processAlive, processStartTime } from "@perflab/catalog";

type Recorded = { name: string; pid: number; start: string | null };
type StackFile = { bootId: string | null; stack: Recorded; services: Recorded[] };

/** This boot's id: pids and start times (ticks since boot) name a process within one boot only. */
function bootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * Still the recorded process, and running. An entry whose start time is unknown is never taken for
 * it, so never signalled.
 */
export function alive(entry: Recorded): boolean {
  return entry.start !== null && processAlive(entry.pid, entry.start);
}

function readStackFile(file: string): StackFile | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as StackFile;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops the services an earlier stack recorded in `file` and left running (SIGTERM, then SIGKILL
 * after `graceMs`), in the reverse of their start order, and returns their names. Throws if that
 * stack itself still runs: two stacks on one data directory would share its Postgres.
 */
export async function stopLeftovers(file: string, graceMs = 15_000): Promise<string[]> {
  const earlier = readStackFile(file);
  // Written before the last reboot: every process it names is gone, and its pids are others' now.
  if (!earlier || earlier.bootId !== bootId()) {
    await rm(file, { force: true });
    return [];
  }
  if (earlier.stack.pid !== process.pid && alive(earlier.stack)) {
    throw new Error(
      `perflab is already running from this directory (pid ${earlier.stack.pid}); stop it first (Ctrl-C, or kill ${earlier.stack.pid})`,
    );
  }
  const stopped: string[] = [];
  for (const entry of [...earlier.services].reverse()) {
    if (!alive(entry)) continue;
    try {
      process.kill(entry.pid, "SIGTERM");
    } catch {
      continue;
    }
    const deadline = Date.now() + graceMs;
    while (alive(entry) && Date.now() < deadline) await sleep(100);
    if (alive(entry)) {
      try {
        process.kill(entry.pid, "SIGKILL");
      } catch {}
      const killDeadline = Date.now() + 5_000;
      while (alive(entry) && Date.now() < killDeadline) await sleep(50);
    }
    stopped.push(`${entry.name} (pid ${entry.pid})`);
  }
  await rm(file, { force: true });
  return stopped;
}

/** Records this process and its services' pids, replacing the file (written after every start). */
export async function recordServices(file: string, services: { name: string; pid: number }[]) {
  const entry = (name: string, pid: number): Recorded => ({ name, pid, start: processStartTime(pid) });
  const content: StackFile = {
    bootId: bootId(),
    stack: entry("stack", process.pid),
    services: services.map((s) => entry(s.name, s.pid)),
  };
  // Whole or not at all: a kill -9 mid-write must not leave a file that names nobody.
  await writeFile(`${file}.tmp`, `${JSON.stringify(content, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
