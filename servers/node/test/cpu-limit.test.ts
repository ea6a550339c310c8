import { describe, expect, it } from "vitest";
import { affinityCpus, countCpuList, cpuLimit, quotaCpus, type ReadText } from "../src/cpu-limit.js";

/** A ReadText over a fixed set of files; any other file is unreadable. */
const files =
  (contents: Record<string, string>): ReadText =>
  (file) =>
    contents[file];

const status = (list: string) => `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${list}\nThreads:\t7\n`;
const noFallback = () => {
  throw new Error("os.availableParallelism() used although the affinity list was readable");
};

describe("cpu limit", () => {
  it("counts a kernel CPU list", () => {
    expect(countCpuList("0")).toBe(1);
    expect(countCpuList("0-3")).toBe(4);
    expect(countCpuList("0-3,8,10-11\n")).toBe(7);
    expect(countCpuList("")).toBeUndefined();
    expect(countCpuList("3-1")).toBeUndefined();
    expect(countCpuList("0-3,x")).toBeUndefined();
  });

  it("reads the affinity mask from /proc/self/status", () => {
    expect(affinityCpus(files({ "/proc/self/status": status("0-1,4") }))).toBe(3);
    expect(affinityCpus(files({ "/proc/self/status": "Name:\tnode\n" }))).toBeUndefined();
    expect(affinityCpus(files({}))).toBeUndefined();
  });

  it("rounds a fractional quota up, from cgroup v2 or else v1", () => {
    expect(quotaCpus(files({ "/sys/fs/cgroup/cpu.max": "150000 100000\n" }))).toBe(2);
    expect(quotaCpus(files({ "/sys/fs/cgroup/cpu.max": "50000 100000\n" }))).toBe(1);
    expect(quotaCpus(files({ "/sys/fs/cgroup/cpu.max": "200000 100000\n" }))).toBe(2);
    expect(quotaCpus(files({ "/sys/fs/cgroup/cpu.max": "max 100000\n" }))).toBeUndefined();
    const v1 = (quota: string) =>
      files({
        "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": quota,
        "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
      });
    expect(quotaCpus(v1("250000\n"))).toBe(3);
    expect(quotaCpus(v1("-1\n"))).toBeUndefined();
    expect(quotaCpus(files({}))).toBeUndefined();
  });

  it("takes min(affinity CPUs, ceil(quota)), at least 1, as the Go, Rust, Java and Python servers do", () => {
    const limit = (list: string, cpuMax?: string) =>
      cpuLimit(
        files({ "/proc/self/status": status(list), ...(cpuMax ? { "/sys/fs/cgroup/cpu.max": cpuMax } : {}) }),
        noFallback,
      );
    expect(limit("0-3", "150000 100000")).toBe(2); // 1.5 CPUs: 2 workers, not libuv's 1
    expect(limit("0-3", "max 100000")).toBe(4);
    expect(limit("0-3")).toBe(4);
    expect(limit("0", "400000 100000")).toBe(1);
    expect(limit("0-7", "1000 100000")).toBe(1);
  });

  it("falls back to os.availableParallelism() without an affinity list", () => {
    expect(cpuLimit(files({ "/sys/fs/cgroup/cpu.max": "150000 100000" }), () => 1)).toBe(1);
    expect(cpuLimit(files({ "/sys/fs/cgroup/cpu.max": "150000 100000" }), () => 8)).toBe(2);
    expect(cpuLimit(files({}), () => 3)).toBe(3);
  });
});
