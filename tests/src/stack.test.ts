/**
 * The quick-start stack (scripts/stack.ts, what `./scripts/up.sh` runs) as users treat it: a reader
 * of its output that goes away (a closed terminal, `up.sh | head`) does not take it down half-way,
 * SIGTERM stops every service it started, and after a kill -9 the next start stops what the dead one
 * left running (Postgres's lock, Redis's and the web's ports) and comes up in the same place.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { recordServices, stopLeftovers } from "../../scripts/lib/leftovers.ts";
import { until } from "./helpers.ts";
import { aliveOnes, type Recorded, servicesOf, stackEnv, started, startStack } from "./stack-process.ts";

/** The services a starting stack has recorded, once the web app is among them (before it listens). */
const untilWebRecorded = (dataDir: string) =>
  until(
    async () => {
      const found = existsSync(path.join(dataDir, "stack.json")) ? servicesOf(dataDir) : [];
      return found.some((s) => s.name === "web") && found;
    },
    120_000,
    "the stack to record the web app",
  );

/** SIGTERM to a running stack: it exits 0 and no service it recorded is left. */
async function expectStopsClean(stack: ReturnType<typeof startStack>, dataDir: string) {
  const services = servicesOf(dataDir);
  stack.child.kill("SIGTERM");
  expect(await stack.exited).toBe(0);
  expect(aliveOnes(services)).toEqual([]);
}

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGTERM");
});

describe("the quick-start stack", () => {
  it("outlives a reader of its output that went away, and SIGTERM stops every service it started", async () => {
    const env = await stackEnv("epipe");
    const stack = startStack(env);
    await stack.running;
    const services = servicesOf(env.PERFLAB_DATA_DIR);
    expect(services.map((s) => s.name)).toEqual(["redis", "postgres", "worker", "web"]);
    expect(aliveOnes(services)).toEqual(["redis", "postgres", "worker", "web"]);

    // Nobody reads its output any more: every later write fails with EPIPE.
    stack.child.stdout!.destroy();
    stack.child.stderr!.destroy();
    const page = await fetch(`http://127.0.0.1:${env.PERFLAB_PORT}/`);
    expect(page.status).toBe(200);
    // Stopping logs (the worker and web say they stop): it still stops everything, in order.
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
    expect(aliveOnes(services)).toEqual([]);
  }, 240_000);

  it("after a kill -9, the next start stops what the dead one left running and comes up on the same ports", async () => {
    const env = await stackEnv("kill9");
    const first = startStack(env);
    await first.running;
    const left = servicesOf(env.PERFLAB_DATA_DIR);
    first.child.kill("SIGKILL");
    await first.exited;
    // Its services outlive it: Postgres holds its data directory's lock, Redis and the web their ports.
    expect(aliveOnes(left)).toEqual(["redis", "postgres", "worker", "web"]);

    const second = startStack(env);
    await second.running;
    expect(second.output()).toMatch(
      /stopped what an earlier perflab left running: web \(pid \d+\), worker \(pid \d+\), postgres \(pid \d+\), redis \(pid \d+\)/,
    );
    expect(aliveOnes(left)).toEqual([]);
    const runs = await fetch(`http://127.0.0.1:${env.PERFLAB_PORT}/api/v1/runs`);
    expect(runs.status).toBe(200);

    await expectStopsClean(second, env.PERFLAB_DATA_DIR);
  }, 300_000);

  it("records the web app as soon as it exists: a kill -9 while it starts leaves nothing for good", async () => {
    const env = await stackEnv("kill9-web");
    const first = startStack(env);
    const left = await untilWebRecorded(env.PERFLAB_DATA_DIR);
    // Next.js takes a second or more to listen: the kill lands while it starts.
    const upBeforeKill = first.output().includes("perflab is running");
    first.child.kill("SIGKILL");
    await first.exited;
    expect(upBeforeKill).toBe(false);
    expect(left.map((s) => s.name)).toEqual(["redis", "postgres", "worker", "web"]);

    const second = startStack(env);
    await second.running;
    expect(second.output()).toMatch(/stopped what an earlier perflab left running: web \(pid \d+\)/);
    expect(aliveOnes(left)).toEqual([]);
    await expectStopsClean(second, env.PERFLAB_DATA_DIR);
  }, 300_000);

  it("stopped while the web app starts, stops it with the rest", async () => {
    const env = await stackEnv("term-web");
    const stack = startStack(env);
    const recorded = await untilWebRecorded(env.PERFLAB_DATA_DIR);
    const upBeforeStop = stack.output().includes("perflab is running");
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
    expect(upBeforeStop).toBe(false);
    expect(stack.output()).not.toContain("could not start");
    expect(aliveOnes(recorded)).toEqual([]);
  }, 300_000);

  it("signals no process it cannot prove is the one recorded: another boot's file, an unknown start time", async () => {
    const dir = path.join(inject("tmpDir"), "stack-proof");
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, "stack.json");
    const bystander = spawn("sleep", ["60"], { stdio: "ignore" });
    started.push(bystander);
    try {
      // Recorded as this boot's: the bystander would be stopped...
      await recordServices(file, [{ name: "redis", pid: bystander.pid! }]);
      const recorded = JSON.parse(await readFile(file, "utf8")) as {
        bootId: string;
        stack: Recorded;
        services: Recorded[];
      };
      const dead = { ...recorded, stack: { ...recorded.stack, pid: 999_999_999 } };
      // ...but not from a file written before a reboot,
      await writeFile(file, JSON.stringify({ ...dead, bootId: "another-boot" }));
      expect(await stopLeftovers(file, 1_000)).toEqual([]);
      // nor when its start time is unknown,
      const unknown = { ...dead, services: [{ ...recorded.services[0]!, start: null }] };
      await writeFile(file, JSON.stringify(unknown));
      expect(await stopLeftovers(file, 1_000)).toEqual([]);
      expect(bystander.exitCode === null && bystander.signalCode === null).toBe(true);
      // and a stack still running is refused rather than robbed of its services.
      await writeFile(file, JSON.stringify({ ...recorded, stack: { ...recorded.services[0]! } }));
      await expect(stopLeftovers(file, 1_000)).rejects.toThrow(/already running/);
      // The same record with the dead stack: the bystander is stopped.
      await writeFile(file, JSON.stringify(dead));
      expect(await stopLeftovers(file, 1_000)).toEqual([`redis (pid ${bystander.pid})`]);
    } finally {
      bystander.kill("SIGKILL");
    }
  });
});
