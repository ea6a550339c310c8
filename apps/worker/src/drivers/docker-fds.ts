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
 * Where a cgroup line of /proc/<pid>/cgroup keeps its processes: the unified hierarchy (cgroup v2,
 * or v1's `unified` mount) or v1's memory controller, every container's. The root cgroup is the
 * whole machine's, never a container's.
 */
function procsFiles(line: string): string[] {
  const [, controllers = "", cgroup = "/"] = line.split(":");
  if (cgroup === "/") return [];
  if (controllers === "")
    return [`/sys/fs/cgroup${cgroup}/cgroup.procs`, `/sys/fs/cgroup/unified${cgroup}/cgroup.procs`];
  return controllers.split(",").includes("memory") ? [`/sys/fs/cgroup/memory${cgroup}/cgroup.procs`] : [];
}

/** The processes of a container: those of its init process's cgroup, else the init process alone. */
function containerPids(initPid: number): number[] {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${initPid}/cgroup`, "utf8").split("\n").filter(Boolean);
  } catch {
    return [initPid];
  }
  for (const file of lines.flatMap(procsFiles)) {
    try {
      const pids = readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
      if (pids.includes(initPid)) return pids;
    } catch {
      // Not mounted here: the next hierarchy.
    }
  }
  return [initPid];
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
