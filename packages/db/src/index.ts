import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client.ts";

export * from "./generated/prisma/client.ts";
export {
  DEFAULT_MIGRATIONS_DIR,
  type MigrateOptions,
  type MigrateResult,
  migrate,
  migrationChecksum,
  readMigrations,
} from "./migrate.ts";

export interface CreateDbOptions {
  /** Connections in this process's pool. Web and worker each hold one pool. */
  poolSize?: number;
}

const pools = new WeakMap<object, pg.Pool>();

/**
 * A Prisma client over node-postgres (driver adapter: no query engine binary). Its pool is also
 * reachable through `poolOf`, for the few statements Prisma would copy large values for.
 */
export function createDb(databaseUrl: string, options: CreateDbOptions = {}) {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

export type Db = ReturnType<typeof createDb>;

/**
 * The node-postgres pool under a client made by `createDb`. Prisma passes a `Bytes` value as
 * base64 text and back (a 1 MiB row allocates several MiB on the way); node-postgres sends a Buffer
 * as it is, in binary.
 */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("poolOf: this client was not made by createDb");
  return pool;
}

export { METRIC_POINT_ROWS_PER_STATEMENT, upsertMetricPoints } from "./points.ts";
export { backfillRollups, ROLLUP_MIN_SECONDS, writeCellRollups } from "./rollups.ts";
export {
  createApiToken,
  DEFAULT_WORKSPACE_SLUG,
  ensureDefaultWorkspace,
  hashToken,
  keepApiToken,
  newTokenSecret,
  tokenShownPart,
} from "./tokens.ts";
export { deleteUploadBody, readUploadBody, storeUploadBody, UPLOAD_CHUNK_BYTES } from "./uploads.ts";
