/** The embedded perflab: Postgres, Redis, worker and web on this machine, until Ctrl-C. */
import { readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { backfillRollups, createDb } from "@perflab/db";
import { recordServices, stopLeftovers } from "./lib/leftovers.ts";
import {
  repoRoot,
  type Service,
  startPostgres,
  startRedis,
  startWeb,
  startWorker,
  waitForPort,
} from "./lib/services.ts";

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
async function started(name: string, pid: number | null | undefined) {
  if (pid) pids.push({ name, pid });
  await recordServices(stackFile, pids);
  recorded = true;
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
  const worker = startWorker({ databaseUrl: pg.url, redisUrl: redis.url, log });
  services.push(worker);
  await started("worker", worker.child.pid);
  // Recorded as soon as it exists: a stack killed while Next.js starts leaves it to the next start.
  let webRecorded: Promise<void> = Promise.resolve();
  await startWeb({
    databaseUrl: pg.url,
    redisUrl: redis.url,
    port,
    host,
    log,
    // In the services at once too: a stop while Next.js starts stops it with the rest.
    onSpawn: (child) => {
      services.push(child);
      webRecorded = started("web", child.child.pid);
    },
  });
  await webRecorded;
  await waitForPort(port, 5_000);
  worker.child.once("exit", () => {
    if (!stopping) {
      console.error("the worker stopped; shutting perflab down");
      void stopAll(1);
    }
  });
  console.log(
    `\n  perflab is running: http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}\n  (Ctrl-C stops it; data stays in ${path.relative(process.cwd(), dataDir) || dataDir})\n`,
  );
} catch (error) {
  // Stopped while starting (Ctrl-C, SIGTERM): the services it stopped are not why.
  if (!stopping) console.error(`perflab could not start: ${(error as Error).message}`);
  await stopAll(1);
}
