/**
 * The quick-start stack (scripts/stack.ts, what `./scripts/up.sh` runs) as a child of a test, on
 * ports and a data directory of its own, and what it records of its services in `stack.json`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { alive } from "../../scripts/lib/leftovers.ts";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, until } from "./helpers.ts";

export type Recorded = { name: string; pid: number; start: string | null };

/** Every process the stacks of a test file started or spawned beside them: killed by its afterAll. */
export const started: ChildProcess[] = [];

export function startStack(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/stack.ts"], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const running = until(
    async () => output.includes("perflab is running") || child.exitCode !== null || child.signalCode !== null,
    120_000,
    "the stack to start",
  ).then(() => {
    if (!output.includes("perflab is running")) throw new Error(`the stack did not start:\n${output}`);
  });
  // A test that stops the stack while it starts never awaits this: its rejection is no error then.
  running.catch(() => undefined);
  return { child, output: () => output, exited, running };
}

export async function stackEnv(name: string) {
  return {
    ...ownWorkerEnv(`stack-${name}`),
    PERFLAB_DATA_DIR: path.join(inject("tmpDir"), `stack-${name}`),
    PERFLAB_PORT: String(await freePort()),
    PERFLAB_PG_PORT: String(await freePort()),
    PERFLAB_REDIS_PORT: String(await freePort()),
  };
}

export const servicesOf = (dataDir: string): Recorded[] =>
  (JSON.parse(readFileSync(path.join(dataDir, "stack.json"), "utf8")) as { services: Recorded[] }).services;

// Orphans of a killed stack are reaped by whatever adopts them, maybe late: a zombie has exited.
export const aliveOnes = (services: Recorded[]) => services.filter(alive).map((s) => s.name);
