import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { markBuilding } from "@perflab/catalog";
import { describe, expect, it, onTestFinished } from "vitest";
import { waitForServerBuilds } from "./wait-for-builds.ts";

function buildDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "perflab-wait-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function builder(dir: string, name: string) {
  const child = spawn("sleep", ["60"]);
  markBuilding(dir, name, child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    end: () => {
      child.kill("SIGKILL");
      return exited;
    },
  };
}

describe("a cell waiting for server builds", () => {
  it("returns at once when nothing builds", async () => {
    const dir = buildDir();
    const told: string[][] = [];
    await waitForServerBuilds({
      buildDir: dir,
      signal: new AbortController().signal,
      onWait: (b) => void told.push(b),
    });
    expect(told).toEqual([]);
  });

  it("waits until every build ended, saying which are left as they change and again while they last", async () => {
    const dir = buildDir();
    const rust = builder(dir, "rust");
    const java = builder(dir, "java");
    const told: string[][] = [];
    let done = false;
    const waiting = waitForServerBuilds({
      buildDir: dir,
      signal: new AbortController().signal,
      onWait: (b) => void told.push(b),
      pollMs: 20,
      repeatMs: 150,
    }).then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(done).toBe(false);
    expect(told[0]).toEqual(["java", "rust"]);
    expect(told.length).toBeGreaterThanOrEqual(2); // Repeated while the builds last.
    await java.end();
    await expect.poll(() => told.at(-1), { timeout: 2_000 }).toEqual(["rust"]);
    expect(done).toBe(false);
    await rust.end();
    await waiting;
    expect(done).toBe(true);
  });

  it("returns when the worker stops meanwhile", async () => {
    const dir = buildDir();
    const rust = builder(dir, "rust");
    const stop = new AbortController();
    const waiting = waitForServerBuilds({
      buildDir: dir,
      signal: stop.signal,
      onWait: () => undefined,
      pollMs: 5_000,
    });
    setTimeout(() => stop.abort(), 50);
    const started = Date.now();
    await waiting;
    expect(Date.now() - started).toBeLessThan(2_000);
    await rust.end();
  });
});
