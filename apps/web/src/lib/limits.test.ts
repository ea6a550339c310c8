import { describe, expect, it } from "vitest";
import type { CellDto } from "./dto";
import { formatLimits, limitsLabel } from "./limits";

const cell = (over: Partial<Pick<CellDto, "limits" | "driver" | "status">>) =>
  ({ limits: null, driver: "docker", status: "queued", ...over }) as Pick<
    CellDto,
    "limits" | "driver" | "status"
  >;

describe("formatLimits", () => {
  it("prints the parts that are there, never undefined", () => {
    expect(formatLimits({ cpus: 1, memoryMb: 512, cpuset: null })).toBe("1 vCPU · 512 MB");
    expect(formatLimits({ cpus: 2, memoryMb: 2048, cpuset: "0-1" })).toBe("2 vCPU · 2048 MB · CPUs 0-1");
    // A report frozen while a cell still held its request: no cpus.
    expect(formatLimits({ memoryMb: 512 })).toBe("512 MB");
    expect(formatLimits({ cpus: undefined, memoryMb: "512" })).toBeNull();
    expect(formatLimits({})).toBeNull();
    expect(formatLimits(null)).toBeNull();
  });
});

describe("limitsLabel", () => {
  const requested = { memoryMb: 512 };

  it("shows enforced limits as enforced", () => {
    const applied = { cpus: 1, memoryMb: 512, cpuset: null };
    expect(limitsLabel(cell({ limits: applied, status: "running" }), requested)).toEqual({
      text: "1 vCPU · 512 MB",
      applied: true,
    });
  });

  it("shows a limit not applied yet, or never, as requested", () => {
    expect(limitsLabel(cell({ status: "queued" }), requested)).toEqual({
      text: "requested 512 MB",
      applied: false,
    });
    expect(limitsLabel(cell({ status: "running" }), { cpus: 1, memoryMb: 512 })).toEqual({
      text: "requested 1 vCPU · 512 MB",
      applied: false,
    });
    expect(limitsLabel(cell({ status: "failed" }), requested)).toEqual({
      text: "requested 512 MB, not applied",
      applied: false,
    });
    expect(limitsLabel(cell({ driver: "local", status: "succeeded" }), requested)).toEqual({
      text: "requested 512 MB, not enforced by the local driver",
      applied: false,
    });
  });

  it("says nothing when nothing was asked or applied", () => {
    expect(limitsLabel(cell({}), undefined)).toBeNull();
    expect(limitsLabel(cell({ driver: "local" }), {})).toBeNull();
  });
});
