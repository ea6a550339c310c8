/** The embedded perflab: Postgres, Redis, worker and web on this machine, until Ctrl-C. */
import path from "node:path";
import { backfillRollups, createDb } from "@perflab/db";
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
const dataDir = path.join(repoRoot, ".perflab/data");
const log = (line: string) => console.log(line);

const services: Service[] = [];
let stopping = false;
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  for (const service of services.reverse()) await service.stop().catch(() => undefined);
  process.exit(code);
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

try {
  const redis = await startRedis({ dir: path.join(dataDir, "redis"), port: redisPort });
  services.push(redis);
  const pg = await startPostgres({ dir: path.join(dataDir, "postgres"), port: pgPort });
  services.push(pg);
  ownSignals();
  // Long cells without all rollup levels (an older perflab, a failed write), before any cell runs.
  const db = createDb(pg.url);
  const rollups = await backfillRollups(db).finally(() => db.$disconnect());
  if (rollups.rolledUp) console.log(`» rolled up ${rollups.rolledUp} long cell(s) that lacked rollups`);
  for (const f of rollups.failed) console.warn(`» could not roll up cell ${f.cellId}: ${f.error}`);
  const worker = startWorker({ databaseUrl: pg.url, redisUrl: redis.url, log });
  services.push(worker);
  const web = await startWeb({ databaseUrl: pg.url, redisUrl: redis.url, port, host, log });
  services.push(web);
  await waitForPort(port, 5_000);
  worker.child.once("exit", () => {
    if (!stopping) {
      console.error("the worker stopped; shutting perflab down");
      void stopAll(1);
    }
  });
  console.log(
    `\n  perflab is running: http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}\n  (Ctrl-C stops it; data stays in .perflab/data)\n`,
  );
} catch (error) {
  console.error(`perflab could not start: ${(error as Error).message}`);
  await stopAll(1);
}
