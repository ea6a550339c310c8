import { readdir, readFile } from "node:fs/promises";

/** Environment marker on every process the worker starts: which worker (host and pid) owns it. */
export const OWNER_ENV = "PERFLAB_OWNER";
export const CELL_ENV = "PERFLAB_CELL";

export const ownerMarker = (hostId: string) => `${hostId}:${process.pid}`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills servers and k6 processes left behind by a worker of this host that died (kill -9, OOM,
 * power cut). Returns the cell ids they belonged to, so those cells can say why they failed.
 */
export async function reapOrphanProcesses(hostId: string): Promise<string[]> {
  const cells = new Set<string>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    let environ: string;
    try {
      environ = await readFile(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue;
    }
    const vars = new Map(
      environ.split("\0").map((kv) => {
        const i = kv.indexOf("=");
        return [kv.slice(0, i), kv.slice(i + 1)] as const;
      }),
    );
    const owner = vars.get(OWNER_ENV);
    if (!owner) continue;
    const sep = owner.lastIndexOf(":");
    if (owner.slice(0, sep) !== hostId) continue;
    const ownerPid = Number(owner.slice(sep + 1));
    if (ownerPid === process.pid || isAlive(ownerPid)) continue;
    const cell = vars.get(CELL_ENV);
    if (cell) cells.add(cell);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return [...cells];
}
