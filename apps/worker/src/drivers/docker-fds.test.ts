import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { containerFdsReader } from "./docker-fds.ts";

/** A container as far as the reader asks: what the engine says of its init process. */
const containerOf = (inspect: () => Promise<{ State: { Pid: number } }>) =>
  ({ inspect }) as unknown as Docker.Container;

describe("a local container's open descriptors", () => {
  it("counts those of the container's init process at least, as /proc lists them", async () => {
    // Stands in for a container's init: a process holding three descriptors more than it needs.
    const init = spawn("sh", ["-c", "exec 3</dev/null 4</dev/null 5</dev/null; exec sleep 30"], {
      stdio: "ignore",
    });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const own = readdirSync(`/proc/${init.pid}/fd`).length;
      expect(own).toBeGreaterThanOrEqual(6);
      const read = containerFdsReader(containerOf(async () => ({ State: { Pid: init.pid! } })));
      expect(await read()).toBeGreaterThanOrEqual(own);
    } finally {
      init.kill("SIGKILL");
    }
  });

  it("has none for a container that is not running, and asks the engine again after a failure", async () => {
    expect(await containerFdsReader(containerOf(async () => ({ State: { Pid: 0 } })))()).toBeNull();
    let asked = 0;
    const read = containerFdsReader(
      containerOf(async () => {
        asked++;
        if (asked === 1) throw new Error("engine restarting");
        return { State: { Pid: process.pid } };
      }),
    );
    expect(await read()).toBeNull();
    expect(await read()).toBeGreaterThan(0);
    expect(asked).toBe(2);
  });
});
