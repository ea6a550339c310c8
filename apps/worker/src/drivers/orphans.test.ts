import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ownerAlive, ownerMarker, parseOwner, processStartTime } from "./orphans.ts";

describe("owner markers", () => {
  it("name this worker by host, pid and start time, and parse back", () => {
    const marker = ownerMarker("lab-1");
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(marker).toBe(`lab-1:${process.pid}@${start}`);
    expect(parseOwner(marker)).toEqual({ hostId: "lab-1", pid: process.pid, start });
    expect(parseOwner("a:b:42")).toEqual({ hostId: "a:b", pid: 42, start: null });
    expect(parseOwner("no-pid")).toBeNull();
    expect(parseOwner("lab-1:x@1")).toBeNull();
  });

  it("count a live pid as the owner only while it is the same process", () => {
    const start = processStartTime(process.pid)!;
    expect(ownerAlive(process.pid, start)).toBe(true);
    expect(ownerAlive(process.pid, null)).toBe(true);
    // The same pid with another start time: the pid was reused, the owner is gone.
    expect(ownerAlive(process.pid, String(Number(start) + 1))).toBe(false);
    const exited = spawnSync("true").pid!;
    expect(ownerAlive(exited, null)).toBe(false);
  });
});
