import { readdir, readFile } from "node:fs/promises";
import { processAlive, processStartTime } from "@perflab/contracts/processes";

/** Environment marker on every process the worker starts: which worker (host and pid) owns it. */
export const OWNER_ENV = "PERFLAB_OWNER";
export const CELL_ENV = "PERFLAB_CELL";

export { processStartTime };
/** Whether the owner named by (pid, start time) still runs: the pid is live and is still that process. */
export const ownerAlive = processAlive;

/** `<hostId>:<pid>@<start time>`: the worker process that owns a server, k6 or container. */
export const ownerMarker = (hostId: string) =>
  `${hostId}:${process.pid}@${processStartTime(process.pid) ?? "?"}`;

/** The parts of an owner marker; markers without a start time (older workers) still parse. */
export function parseOwner(owner: string): { hostId: string; pid: number; start: string | null } | null {
  const sep = owner.lastIndexOf(":");
  if (sep < 0) return null;
  const [pidText, start] = owner.slice(sep + 1).split("@");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { hostId: owner.slice(0, sep), pid, start: start && start !== "?" ? start : null };
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
    const owner = parseOwner(vars.get(OWNER_ENV) ?? "");
    if (!owner || owner.hostId !== hostId) continue;
    if (owner.pid === process.pid && owner.start === processStartTime(process.pid)) continue;
    if (owner.pid !== process.pid && ownerAlive(owner.pid, owner.start)) continue;
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
