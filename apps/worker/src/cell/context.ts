import path from "node:path";
import type { CatalogEntry } from "@perflab/catalog";
import type { Db, Prisma } from "@perflab/db";
import type { Redis } from "ioredis";
import { withDbRetry } from "../db-retry.ts";
import type { PlacementResources } from "../drivers/placement.ts";
import type { WorkerEnv } from "../env.ts";
import type { Logger } from "../logger.ts";
import { CELL_ENV, OWNER_ENV, ownerMarker } from "../owner.ts";
import { abortReason, CellFailure, SHUT_DOWN_DURING } from "./errors.ts";
import { publish } from "./finish.ts";

export type CellDeps = PlacementResources & {
  db: Db;
  publisher: Redis;
  env: WorkerEnv;
  k6Version: string;
  log: Logger;
  /**
   * Another live worker running this cell, if any: a job comes back while its worker still runs it
   * when Redis was away longer than the job's lock, and must not fail a measurement under way.
   */
  cellOwner?: (cellId: string) => Promise<string | null>;
};

export type CellRow = Prisma.CellGetPayload<{ include: { run: true } }>;

/** What every stage of one claimed cell shares. */
export type CellContext = {
  deps: CellDeps;
  cell: CellRow;
  /** The cell's server in this worker's catalog, if it is there. */
  server: CatalogEntry | undefined;
  log: Logger;
  signal: AbortSignal | undefined;
  /** The cell's scratch directory. */
  workDir: string;
  /** The owner and cell markers of every process the cell starts (see reapOrphanProcesses). */
  marker: Record<string, string>;
  /**
   * The writes from the load's start on: a database that stops answering meanwhile costs a delay,
   * not the measurement (each is idempotent, so a retry after a lost acknowledgement is harmless).
   */
  durable: <T>(what: string, fn: () => Promise<T>) => Promise<T>;
  /** Publishes the stage the running cell is in. */
  stage: (name: string) => Promise<void>;
  /** A stop, cancel or lost host lock ends the cell at the next step, whichever stage it is in. */
  checkAbort: () => void;
};

export function cellContext(
  deps: CellDeps,
  cell: CellRow,
  server: CatalogEntry | undefined,
  signal: AbortSignal | undefined,
): CellContext {
  const { env } = deps;
  const log = deps.log.child({ cellId: cell.id, runId: cell.runId, server: cell.serverName });
  return {
    deps,
    cell,
    server,
    log,
    signal,
    workDir: path.join(env.PERFLAB_WORK_DIR, cell.id),
    marker: { [OWNER_ENV]: ownerMarker(env.PERFLAB_HOST_ID), [CELL_ENV]: cell.id },
    durable: (what, fn) => withDbRetry(what, fn, { log, retryMs: env.PERFLAB_DB_RETRY_MS }),
    stage: (name) =>
      publish(deps, cell.runId, { type: "cell", cellId: cell.id, status: "running", stage: name }),
    checkAbort: () => {
      if (signal?.aborted) throw new CellFailure(abortReason(signal, SHUT_DOWN_DURING));
    },
  };
}
