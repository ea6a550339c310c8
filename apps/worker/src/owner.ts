import { processAlive, processStartTime } from "@perflab/catalog";

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
