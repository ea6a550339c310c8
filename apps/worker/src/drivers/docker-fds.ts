import { readdirSync, readFileSync } from "node:fs";
import type Docker from "dockerode";
import { ENGINE_CALL_MS, within } from "./docker-engine.ts";

const RESCAN_MS = 5_000;

/** Open descriptors of one process, null where /proc does not let us read them. */
function fdsOf(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/**
 * The processes of a container as this kernel sees them: those of its init process's cgroup (v2),
 * or the init process alone where the cgroup's list cannot be read.
 */
function containerPids(initPid: number): number[] {
  try {
    const line = readFileSync(`/proc/${initPid}/cgroup`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("0::"));
    if (!line) return [initPid];
    const procs = readFileSync(`/sys/fs/cgroup${line.slice(3).trim()}/cgroup.procs`, "utf8");
    const pids = procs.split("\n").filter(Boolean).map(Number);
    return pids.length ? pids : [initPid];
  } catch {
    return [initPid];
  }
}

/**
 * Reads a container's open descriptors from /proc, summed over its processes, when its engine runs
 * on this kernel (a remote engine's are out of reach: null). The engine says which host pid the
 * container's init is once; its processes are listed again every few seconds.
 */
export function containerFdsReader(container: Docker.Container): () => Promise<number | null> {
  let initPid: Promise<number | null> | null = null;
  let pids: number[] = [];
  let scannedAt = Number.NEGATIVE_INFINITY;
  return async () => {
    initPid ??= within(container.inspect(), ENGINE_CALL_MS).then(
      (info) => (info.State.Pid > 0 ? info.State.Pid : null),
      () => null,
    );
    const init = await initPid;
    if (init === null) {
      initPid = null;
      return null;
    }
    if (Date.now() - scannedAt > RESCAN_MS) {
      pids = containerPids(init);
      scannedAt = Date.now();
    }
    const counts = pids.map(fdsOf).filter((n): n is number => n !== null);
    return counts.length ? counts.reduce((a, b) => a + b, 0) : null;
  };
}
