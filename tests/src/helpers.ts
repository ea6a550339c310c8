import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { createDb, type Db } from "@perflab/db";
import { Queue } from "bullmq";
import { inject } from "vitest";
import { freePort, startRedis } from "../../scripts/lib/services.ts";

let db: Db | null = null;
export function testDb(): Db {
  db ??= createDb(inject("databaseUrl"));
  return db;
}

export function redisConnection(redisUrl: string = inject("redisUrl")) {
  const url = new URL(redisUrl);
  return { host: url.hostname, port: Number(url.port) };
}

type CellInput = {
  serverName: string;
  vus: number;
  durationSeconds: number;
  warmupSeconds: number;
  tool?: string;
  args?: object;
  driver?: "local" | "docker";
  limits?: { cpus?: number; memoryMb?: number };
};

/**
 * Queues a run straight into Postgres and BullMQ, the way the web app does, for servers that only
 * the test catalog knows (the web app validates against the real one).
 */
export async function queueRun(
  cells: CellInput[],
  options: { redisUrl?: string; enqueue?: boolean } = {},
): Promise<{ runId: string; cellIds: string[] }> {
  const db = testDb();
  const workspace = await db.workspace.upsert({
    where: { slug: "tests" },
    create: { slug: "tests", name: "Tests" },
    update: {},
  });
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      name: "integration",
      spec: { cooldownSec: 0 },
      cellsTotal: cells.length,
      cells: {
        create: cells.map((c, index) => ({
          index,
          serverName: c.serverName,
          scenario: "mcp-tool-call",
          loadLevel: { vus: c.vus },
          params: { tool: c.tool ?? "echo", arguments: c.args ?? { message: "hello" } },
          durationSeconds: c.durationSeconds,
          warmupSeconds: c.warmupSeconds,
          driver: c.driver ?? "local",
          limits: c.limits,
        })),
      },
    },
    include: { cells: { orderBy: { index: "asc" } } },
  });
  if (options.enqueue === false) return { runId: run.id, cellIds: run.cells.map((c) => c.id) };
  const queue = new Queue(QUEUE_CELLS, { connection: redisConnection(options.redisUrl) });
  await queue.addBulk(
    run.cells.map((c) => ({
      name: JOB_CELL_RUN,
      data: { runId: run.id, cellId: c.id },
      opts: { jobId: c.id },
    })),
  );
  await queue.close();
  return { runId: run.id, cellIds: run.cells.map((c) => c.id) };
}

export async function waitForRun(runId: string, timeoutMs: number) {
  const db = testDb();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (["succeeded", "failed", "partial", "cancelled"].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`run ${runId} did not finish within ${timeoutMs} ms`);
}

/** Pids of processes started for a cell (the marker the worker puts in their environment). */
export async function processesOfCell(cellId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`PERFLAB_CELL=${cellId}`)) pids.push(Number(name));
  }
  return pids;
}

/** Polls `fn` every 200 ms until it returns something truthy, which it returns; fails naming `what`. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await fn();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A Redis of the test's own: a worker on it never takes the suite worker's jobs, nor the suite's its. */
export async function startOwnRedis(name: string): ReturnType<typeof startRedis> {
  return startRedis({ dir: path.join(inject("tmpDir"), `redis-${name}`), port: await freePort() });
}

/** A worker of the test's own: the test catalog (reference and test-only servers) and its own work dir. */
export function ownWorkerEnv(name: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    PERFLAB_SERVERS_DIR: inject("serversDir"),
    PERFLAB_WORK_DIR: path.join(inject("tmpDir"), `work-${name}`),
    ...env,
  };
}
