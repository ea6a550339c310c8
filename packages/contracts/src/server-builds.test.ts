import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { markBuilding, serversBuilding, unmarkBuilding } from "./server-builds.ts";

describe("servers being built", () => {
  it("are the markers whose process is alive, sorted; a dead builder's marker counts as done", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "perflab-builds-"));
    expect(serversBuilding(dir)).toEqual([]);
    const builder = spawn("sleep", ["30"]);
    const exited = new Promise((resolve) => builder.once("exit", resolve));
    markBuilding(dir, "rust", builder.pid);
    markBuilding(dir, "java", process.pid);
    writeFileSync(path.join(dir, "python.building"), "not a pid\n");
    // This process's pid with another start time: a marker from before a reboot whose pid was reused.
    writeFileSync(path.join(dir, "bun.building"), `${process.pid} 1\n`);
    writeFileSync(path.join(dir, "go.sha256"), "abc");
    expect(serversBuilding(dir)).toEqual(["java", "rust"]);

    builder.kill("SIGKILL");
    await exited;
    expect(serversBuilding(dir)).toEqual(["java"]);
    unmarkBuilding(dir, "java");
    unmarkBuilding(dir, "java"); // Twice is harmless.
    expect(serversBuilding(dir)).toEqual([]);
  });

  it("are none when the build folder does not exist (a worker on a machine that built nothing)", () => {
    expect(serversBuilding(path.join(os.tmpdir(), "perflab-no-such-dir", String(process.pid)))).toEqual([]);
  });
});
