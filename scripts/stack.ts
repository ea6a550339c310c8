/** The embedded perflab: Postgres, Redis, worker and web on this machine, until Ctrl-C. */
import { readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { backfillRollups, createDb } from "@perflab/db";
import { reapOrphanProcesses } from "@perflab/worker/testing";
import { recordServices, stopLeftovers } from "./lib/leftovers.ts";
import {
  repoRoot,
  type Service,
  startPostgres,
  startRedis,
  startWeb,
  startWorker,
  stopGroup,
  waitForPort,
} from "./lib/services.ts";
import { supervise } from "./lib/supervise.ts";

const port = Number(process.env.PERFLAB_PORT ?? 3000);
const host = process.env.PERFLAB_HOST ?? "127.0.0.1";
const pgPort = Number(process.env.PERFLAB_PG_PORT ?? 54329);
const redisPort = Number(process.env.PERFLAB_REDIS_PORT ?? 63790);
const dataDir = path.resolve(process.env.PERFLAB_DATA_DIR ?? path.join(repoRoot, ".perflab/data"));
const stackFile = path.join(dataDir, "stack.json");
const log = (line: string) => console.log(line);
// A closed terminal or a reader that went away (`up.sh | head`) fails our writes with EIO or EPIPE,
// which Node raises as an uncaught error: perflab would die and orphan Postgres and Redis. Logs are
// dropped instead; Ctrl-C, SIGTERM and the terminal's hang-up (up.sh turns it into SIGINT) stop it.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);

const services: Service[] = [];
/** The pids `stopLeftovers` stops if this process dies without stopping them, once recorded. */
const pids: { name: string; pid: number }[] = [];
let recorded = false;
let stopping = false;
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  for (const service of services.reverse()) await service.stop().catch(() => undefined);
  if (recorded) await rm(stackFile, { force: true }).catch(() => undefined);
  process.exit(code);
}
// Whatever else goes wrong in this process, its services stop with it.
for (const event of ["uncaughtException", "unhandledRejection"] as const) {
  process.on(event, (error) => {
    console.error(`perflab stopped on an unexpected error: ${(error as Error)?.stack ?? error}`);
    void stopAll(1);
  });
}
/**
 * Ctrl-C and SIGTERM stop every service in order. Libraries may hook these signals too (the embedded
 * Postgres package exits the process once its own server stopped, orphaning Redis and the worker):
 * after start-up, this handler is the only one.
 */
const onSignal = () => void stopAll(0);
function ownSignals() {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
}
ownSignals();

function postmasterPid(dir: string): number | null {
  try {
    return Number(readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]) || null;
  } catch {
    return null;
  }
}
let recording: Promise<void> = Promise.resolve();
/** Records a service's pid, one write at a time; a restarted one takes its predecessor's place. */
async function started(name: string, pid: number | null | undefined) {
  const entry = pid ? { name, pid } : null;
  const index = pids.findIndex((p) => p.name === name);
  if (entry && index >= 0) pids[index] = entry;
  else if (entry) pids.push(entry);
  const write = recording.then(() => recordServices(stackFile, pids));
  recording = write.catch(() => undefined);
  await write;
  recorded = true;
}

/**
 * What a worker that died left running goes at once, not when a restarted worker sweeps for it:
 * k6 and the fixtures in its process group, its servers (groups of their own) by the owner marker
 * they carry. The cell it ran ends `failed` when its job comes back to the restarted worker.
 */
async function reapDeadWorker(worker: ReturnType<typeof startWorker>) {
  stopGroup(worker.child);
  const cells = await reapOrphanProcesses(process.env.PERFLAB_HOST_ID ?? os.hostname());
  if (cells.length) log(`» stopped the processes a dead worker left for cell(s) ${cells.join(", ")}`);
}

try {
  const leftovers = await stopLeftovers(stackFile);
  if (leftovers.length)
    console.log(`» stopped what an earlier perflab left running: ${leftovers.join(", ")}`);
  await mkdir(dataDir, { recursive: true });
  await started("stack", null);
  const redis = await startRedis({ dir: path.join(dataDir, "redis"), port: redisPort });
  services.push(redis);
  await started("redis", redis.child.pid);
  const pgDir = path.join(dataDir, "postgres");
  const pg = await startPostgres({ dir: pgDir, port: pgPort });
  services.push(pg);
  await started("postgres", postmasterPid(pgDir));
  ownSignals();
  // Long cells without all rollup levels (an older perflab, a failed write), before any cell runs.
  const db = createDb(pg.url);
  const rollups = await backfillRollups(db).finally(() => db.$disconnect());
  if (rollups.rolledUp) console.log(`» rolled up ${rollups.rolledUp} long cell(s) that lacked rollups`);
  for (const f of rollups.failed) console.warn(`» could not roll up cell ${f.cellId}: ${f.error}`);
  // Worker and web are restarted if they die: a crash of one is no reason to stop the others.
  const worker = supervise({
    name: "worker",
    start: async (spawned) => {
      const child = startWorker({ databaseUrl: pg.url, redisUrl: redis.url, log });
      spawned(child);
      return child;
    },
    onSpawn: (child) => started("worker", child.child.pid),
    cleanUp: reapDeadWorker,
    log,
  });
  services.push(worker);
  await worker.started;
  // In the services and recorded as soon as it exists: a stop or a kill -9 while Next.js starts
  // stops it with the rest, or leaves it to the next start.
  const web = supervise({
    name: "web",
    start: (spawned) =>
      startWeb({ databaseUrl: pg.url, redisUrl: redis.url, port, host, log, onSpawn: spawned }),
    onSpawn: (child) => started("web", child.child.pid),
    log,
  });
  services.push(web);
  await web.started;
  await waitForPort(port, 5_000);
  console.log(
    `\n  perflab is running: http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}\n  (Ctrl-C stops it; data stays in ${path.relative(process.cwd(), dataDir) || dataDir})\n`,
  );
} catch (error) {
  // Stopped while starting (Ctrl-C, SIGTERM): the services it stopped are not why.
  if (!stopping) console.error(`perflab could not start: ${(error as Error).message}`);
  await stopAll(1);
}
