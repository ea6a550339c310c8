// The CPU limit a cluster follows (CONTRACT.md section 1): the CPUs this process may run on (its
// affinity mask), lowered to ceil(cgroup CPU quota), at least 1 — as the Go, Rust, Java and Python
// servers count. Not os.availableParallelism() alone: since libuv 1.49 (Node 22+) it already applies
// the cgroup quota rounded *down*, so 1.5 CPUs would give 1 worker where the others take 2.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Reads a file's text, or undefined if it cannot be read. */
export type ReadText = (file: string) => string | undefined;

const readText: ReadText = (file) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** The number of CPUs in a kernel CPU list such as `0-3,8,10-11`, or undefined if it is not one. */
export function countCpuList(list: string): number | undefined {
  let count = 0;
  for (const part of list.trim().split(",")) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) return undefined;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    if (last < first) return undefined;
    count += last - first + 1;
  }
  return count > 0 ? count : undefined;
}

/** CPUs in the affinity mask: `Cpus_allowed_list` of /proc/self/status, undefined where absent. */
export function affinityCpus(read: ReadText = readText): number | undefined {
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(read("/proc/self/status") ?? "")?.[1];
  return list === undefined ? undefined : countCpuList(list);
}

/** ceil(quota / period) of cgroup v2 `cpu.max`, else of cgroup v1; undefined without a quota. */
export function quotaCpus(read: ReadText = readText): number | undefined {
  const v2 = read("/sys/fs/cgroup/cpu.max")?.trim().split(/\s+/);
  const [quota, period] = v2
    ? [Number(v2[0]), Number(v2[1])]
    : [
        Number(read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")?.trim()),
        Number(read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")?.trim()),
      ];
  // "max" (v2) and -1 (v1) mean no quota.
  return quota > 0 && period > 0 ? Math.ceil(quota / period) : undefined;
}

/** min(affinity CPUs, ceil(quota)), at least 1; os.availableParallelism() where there is no affinity list. */
export function cpuLimit(read: ReadText = readText, fallback: () => number = availableParallelism): number {
  const cpus = affinityCpus(read) ?? fallback();
  const quota = quotaCpus(read);
  return Math.max(1, quota === undefined ? cpus : Math.min(cpus, quota));
}
