import type { CellLimits } from "./types.ts";

export type EngineCapacity = { cpus: number; memoryBytes: number };
export type ResolvedLimits = { cpus: number; memoryBytes: number; cpuset: string | null };

export const DEFAULT_LIMITS = { cpus: 2, memoryMb: 2048 } as const;
const MB = 1024 * 1024;

/** The CPU ids of a cpuset list ("0-1,3" → [0, 1, 3]). */
export function cpusetIds(list: string): number[] {
  const ids = new Set<number>();
  for (const part of list.split(",")) {
    const [from, to = from] = part.split("-").map(Number);
    for (let id = from!; id <= to!; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * The cell's limits, defaulting to 2 vCPU / 2 GB and never more than the engine's machine has. A
 * cpuset must name CPUs the machine has; without a CPU count it also caps the quota to its size.
 */
export function resolveLimits(limits: CellLimits | undefined, capacity: EngineCapacity): ResolvedLimits {
  let cpus = Math.min(limits?.cpus ?? DEFAULT_LIMITS.cpus, capacity.cpus);
  let cpuset: string | null = null;
  if (limits?.cpuset) {
    const ids = cpusetIds(limits.cpuset);
    const missing = ids.filter((id) => id >= capacity.cpus);
    if (ids.length === 0 || missing.length > 0) {
      throw new Error(
        `cpuset "${limits.cpuset}" names CPUs the engine's machine does not have (it has CPUs 0-${capacity.cpus - 1})`,
      );
    }
    cpuset = limits.cpuset;
    cpus = Math.min(limits.cpus ?? Math.min(DEFAULT_LIMITS.cpus, ids.length), ids.length);
  }
  const memoryBytes = Math.min((limits?.memoryMb ?? DEFAULT_LIMITS.memoryMb) * MB, capacity.memoryBytes);
  return { cpus, memoryBytes: Math.floor(memoryBytes), cpuset };
}

/** First `count` CPUs as a cpuset ("0-1"), for runtimes that size pools from visible CPUs. */
export function cpusetFor(cpus: number, hostCpus: number): string {
  const count = Math.max(1, Math.min(hostCpus, Math.ceil(cpus)));
  return count === 1 ? "0" : `0-${count - 1}`;
}
