import { describe, expect, it } from "vitest";
import { cpuTimesOf, hostCpuTimes, parseCpuList } from "./proc.ts";

const STAT = [
  "cpu  400 0 100 1500 0 0 0 0 0 0",
  "cpu0 100 0 0 900 0 0 0 0 0 0",
  "cpu1 100 0 50 350 0 0 0 0 0 0",
  "cpu2 200 0 50 250 0 0 0 0 0 0",
  "intr 1 2 3",
].join("\n");

describe("parseCpuList", () => {
  it("reads ranges and single CPUs", () => {
    expect([...parseCpuList("0-1")!]).toEqual([0, 1]);
    expect([...parseCpuList("0-2,5,7-8\n")!]).toEqual([0, 1, 2, 5, 7, 8]);
  });

  it("refuses what it cannot read", () => {
    expect(parseCpuList("")).toBeNull();
    expect(parseCpuList("a-b")).toBeNull();
    expect(parseCpuList("3-1")).toBeNull();
  });
});

describe("cpuTimesOf", () => {
  it("sums the allowed CPUs' lines only", () => {
    // cpu1 + cpu2: busy 150 + 250, total 500 + 500.
    expect(cpuTimesOf(STAT, new Set([1, 2]))).toEqual({ busy: 400, total: 1000 });
    expect(cpuTimesOf(STAT, new Set([0]))).toEqual({ busy: 100, total: 1000 });
  });

  it("counts iowait as idle", () => {
    expect(cpuTimesOf("cpu  10 0 0 80 10 0 0 0 0 0\ncpu0 10 0 0 80 10 0 0 0 0 0", new Set([0]))).toEqual({
      busy: 10,
      total: 100,
    });
  });

  it("does not count guest time twice: the kernel already counts it in user and nice", () => {
    // A host running a VM: 30 of user's 60 jiffies and 5 of nice's 10 were the guest's.
    expect(cpuTimesOf("cpu  60 10 10 100 20 0 0 0 30 5", null)).toEqual({ busy: 80, total: 200 });
  });

  it("falls back to the whole machine without a list, or when a CPU has no line", () => {
    expect(cpuTimesOf(STAT, null)).toEqual({ busy: 500, total: 2000 });
    expect(cpuTimesOf(STAT, new Set([1, 9]))).toEqual({ busy: 500, total: 2000 });
  });
});

describe("hostCpuTimes", () => {
  it("reads this machine's CPUs that the worker may use", async () => {
    const first = await hostCpuTimes();
    expect(first.total).toBeGreaterThan(0);
    expect(first.busy).toBeGreaterThanOrEqual(0);
    expect(first.busy).toBeLessThanOrEqual(first.total);
  });
});
