/**
 * Starts perflab's services as child processes: Redis, embedded Postgres, the worker and the web
 * app. Used by the quick-start stack and by the integration and browser tests, so both run the
 * product the same way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { migrate } from "@perflab/db";
import { startEmbeddedPostgres } from "@perflab/db/embedded-postgres";
import { OWN_PROCESS_GROUP, waitForPort } from "@perflab/worker/testing";

export const repoRoot = path.resolve(import.meta.dirname, "../..");

export type Service = { name: string; stop: () => Promise<void> };

// The worker's own helpers: one implementation of "free loopback port" and "wait until it listens".
export { freePort, waitForPort } from "@perflab/worker/testing";

type ChildOptions = {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
  /** In a process group of its own, its session kept (see drivers/local.ts): `stopGroup` ends it all. */
  ownGroup?: boolean;
};

/** A child process whose output is prefixed and kept, and which dies with its parent's stop(). */
export function startChild(
  options: ChildOptions,
): Service & { child: ChildProcess; output: () => string; exitReason: () => string | null } {
  const [command, ...args] = options.ownGroup
    ? [...OWN_PROCESS_GROUP, options.command, ...options.args]
    : [options.command, ...options.args];
  const child = spawn(command!, args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exitReason: string | null = null;
  const onData = (data: Buffer) => {
    const text = data.toString();
    output = (output + text).slice(-64 * 1024);
    if (options.log)
      for (const line of text.split("\n")) if (line.trim()) options.log(`[${options.name}] ${line}`);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exitReason = `${options.name} exited (${signal ?? code})\n${output.slice(-4000)}`;
      resolve();
    }),
  );
  return {
    name: options.name,
    child,
    output: () => output,
    exitReason: () => exitReason,
    async stop() {
      if (exitReason) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits for `service` to listen on `port`; a service that does not is stopped, not left running. */
async function untilListening(
  service: ReturnType<typeof startChild>,
  port: number,
  timeoutMs: number,
): Promise<void> {
  try {
    await waitForPort(port, timeoutMs, service.exitReason);
  } catch (error) {
    await service.stop();
    throw error;
  }
}

export async function startRedis(input: { dir: string; port: number; log?: (line: string) => void }) {
  await mkdir(input.dir, { recursive: true });
  const redis = startChild({
    name: "redis",
    command: "redis-server",
    // AOF on and noeviction: queued jobs and live state must survive a restart and never be evicted.
    args: [
      "--port",
      String(input.port),
      "--bind",
      "127.0.0.1",
      "--dir",
      input.dir,
      "--appendonly",
      "yes",
      "--maxmemory-policy",
      "noeviction",
      "--save",
      "",
    ],
    log: input.log,
  });
  await untilListening(redis, input.port, 10_000);
  return { ...redis, url: `redis://127.0.0.1:${input.port}` };
}

export async function startPostgres(input: {
  dir: string;
  port: number;
  durable?: boolean;
  log?: (line: string) => void;
}) {
  const pg = await startEmbeddedPostgres({
    dataDir: input.dir,
    port: input.port,
    durable: input.durable,
    onLog: input.log,
  });
  await migrate(pg.url);
  return { name: "postgres", url: pg.url, stop: pg.stop };
}

/** SIGKILL to every process left in the group of a child started with `ownGroup`, once it has exited. */
export function stopGroup(child: ChildProcess): void {
  // A pid stays reserved while a group of that id has members, so this reaches no other process.
  if (child.pid === undefined || (child.exitCode === null && child.signalCode === null)) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is empty.
  }
}

export function startWorker(input: {
  databaseUrl: string;
  redisUrl: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
}) {
  // Plain node with tsx's loader: one process, so signals and CPU accounting hit the worker itself.
  // Its own process group holds what it starts outside its servers' groups (k6, the fixtures), so
  // they can be stopped if it dies: the fixture Redis rewrites its environment for its process
  // title, so no owner marker finds it.
  return startChild({
    ownGroup: true,
    name: "worker",
    command: process.execPath,
    args: [
      ...(process.env.PERFLAB_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      "--import",
      "tsx",
      "src/main.ts",
    ],
    cwd: path.join(repoRoot, "apps/worker"),
    env: { DATABASE_URL: input.databaseUrl, REDIS_URL: input.redisUrl, ...input.env },
    log: input.log,
  });
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

export async function startWeb(input: {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  host?: string;
  log?: (line: string) => void;
  env?: Record<string, string>;
  /** Called as soon as the process exists, before its port answers: to record and stop it. */
  onSpawn?: (web: ReturnType<typeof startChild>) => void;
}) {
  const webDir = path.join(repoRoot, "apps/web");
  if (!existsSync(path.join(webDir, ".next/BUILD_ID")))
    throw new Error("the web app is not built: run `pnpm build` first");
  const web = startChild({
    name: "web",
    command: path.join(webDir, "node_modules/.bin/next"),
    args: ["start", "-p", String(input.port), "-H", input.host ?? "127.0.0.1"],
    cwd: webDir,
    env: {
      DATABASE_URL: input.databaseUrl,
      REDIS_URL: input.redisUrl,
      NODE_ENV: "production",
      // Bound to loopback, the lab answers to loopback names only (DNS rebinding, docs/security.md).
      ...(LOOPBACK.has(input.host ?? "127.0.0.1") && !process.env.PERFLAB_ALLOWED_HOSTS
        ? { PERFLAB_ALLOWED_HOSTS: "127.0.0.1,localhost,[::1]" }
        : {}),
      ...input.env,
    },
    log: input.log,
  });
  input.onSpawn?.(web);
  await untilListening(web, input.port, 60_000);
  return { ...web, url: `http://127.0.0.1:${input.port}` };
}
