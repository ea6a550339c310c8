/**
 * scripts/test-servers.ts, the servers step of scripts/test.sh: each server's own suite as its
 * perflab.json's `test.command` says, run in its folder; a failing suite fails the step after the
 * others ran, and a server without one is named.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/services.ts";

const run = promisify(execFile);
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function serversWith(tests: Record<string, string | null>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "perflab-suites-"));
  dirs.push(dir);
  for (const [name, command] of Object.entries(tests)) {
    await mkdir(path.join(dir, name));
    await writeFile(
      path.join(dir, name, "perflab.json"),
      JSON.stringify({
        name,
        displayName: name,
        language: "shell",
        runtime: "bash",
        sdk: { name: "none", version: "0" },
        build: { command: "true" },
        start: { command: ["true"] },
        ...(command === null ? {} : { test: { command } }),
      }),
    );
  }
  return dir;
}

async function testServers(serversDir: string, names: string[] = []) {
  return run("pnpm", ["--silent", "exec", "tsx", "scripts/test-servers.ts", ...names], {
    cwd: repoRoot,
    env: { ...process.env, PERFLAB_SERVERS_DIR: serversDir },
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

it("runs every server's test command in its folder, and fails naming the suites that failed", async () => {
  const dir = await serversWith({
    a: "pwd > ran && echo suite-a-output",
    b: "echo failing >&2; exit 3",
    c: null,
    d: "pwd > ran",
  });
  const result = await testServers(dir);
  expect(result.code, result.out).toBe(1);
  expect(await readFile(path.join(dir, "a", "ran"), "utf8")).toBe(`${path.join(dir, "a")}\n`);
  // The suite after a failing one still ran.
  expect(await readFile(path.join(dir, "d", "ran"), "utf8")).toBe(`${path.join(dir, "d")}\n`);
  expect(result.out).toContain("suite-a-output");
  expect(result.out).toMatch(/✓ a in [\d.]+ s/);
  expect(result.out).toMatch(/✗ b: exit 3 after [\d.]+ s/);
  expect(result.out).toContain("c: no test command in its perflab.json");
  expect(result.out).toContain("server suites failed: b");
});

it("runs only the servers named, and refuses a name that is not a server", async () => {
  const dir = await serversWith({ a: "touch ran", b: "exit 1" });
  const only = await testServers(dir, ["a"]);
  expect(only.code, only.out).toBe(0);
  expect(only.out).not.toContain("b:");
  const unknown = await testServers(dir, ["a", "zz"]);
  expect(unknown.code).toBe(1);
  expect(unknown.out).toContain(`no such server in ${dir}: zz`);
});
