import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  markBuildFailed,
  markBuilding,
  recordBuildSeconds,
  serverBuildFailure,
  serverBuildFailures,
  serverBuildStates,
  serversBuilding,
  unmarkBuildFailed,
  unmarkBuilding,
} from "./server-builds.ts";

function buildDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "perflab-builds-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("servers being built", () => {
  it("are the markers whose process is alive, sorted; a dead builder's marker counts as done", async () => {
    const dir = buildDir();
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

  it("failed builds are recorded with their reason until the server builds, and are not counted as building", () => {
    const dir = buildDir();
    expect(serverBuildFailures(dir)).toEqual([]);
    expect(serverBuildFailure(dir, "rust")).toBeNull();
    markBuildFailed(dir, "rust", "exit 101 after 12.0 s; log: /x/rust.log\nerror[E0425]: ...");
    markBuildFailed(dir, "java", "exit 1 after 3.0 s; log: /x/java.log");
    expect(serverBuildFailure(dir, "rust")).toBe("exit 101 after 12.0 s; log: /x/rust.log");
    expect(serverBuildFailures(dir)).toEqual([
      { name: "java", reason: "exit 1 after 3.0 s; log: /x/java.log" },
      { name: "rust", reason: "exit 101 after 12.0 s; log: /x/rust.log" },
    ]);
    expect(serversBuilding(dir)).toEqual([]);
    unmarkBuildFailed(dir, "rust");
    unmarkBuildFailed(dir, "rust");
    expect(serverBuildFailure(dir, "rust")).toBeNull();
    expect(serverBuildFailures(dir).map((f) => f.name)).toEqual(["java"]);
    expect(serverBuildFailures(path.join(dir, "missing"))).toEqual([]);
  });
});

describe("server build states", () => {
  it("say built, building, failed or not built, with the last successful build's seconds", () => {
    const dir = buildDir();
    writeFileSync(path.join(dir, "go.sha256"), "abc");
    recordBuildSeconds(dir, "go", 12.34);
    markBuilding(dir, "rust", process.pid);
    recordBuildSeconds(dir, "rust", 271);
    markBuildFailed(dir, "java", "exit 1 after 3.0 s");
    writeFileSync(path.join(dir, "python.seconds"), "not a number\n");
    expect(serverBuildStates(["go", "rust", "java", "python", "quarkus"], dir)).toEqual({
      go: { state: "built", lastSeconds: 12.3 },
      rust: { state: "building", lastSeconds: 271 },
      java: { state: "failed", lastSeconds: null },
      python: { state: "not built", lastSeconds: null },
      quarkus: { state: "not built", lastSeconds: null },
    });
  });

  it("are all not built when the folder does not exist", () => {
    expect(serverBuildStates(["go"], path.join(buildDir(), "missing"))).toEqual({
      go: { state: "not built", lastSeconds: null },
    });
  });
});
