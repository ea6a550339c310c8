import { readdir, readFile } from "node:fs/promises";
import { CELL_ENV, OWNER_ENV, ownerAlive, parseOwner, processStartTime } from "../owner.ts";

export { CELL_ENV, OWNER_ENV, ownerAlive, ownerMarker, parseOwner, processStartTime } from "../owner.ts";

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
