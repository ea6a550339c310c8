import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client.ts";
import { rememberPool } from "./pool.ts";

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
  rememberPool(db, pool);
  return db;
}

export type Db = ReturnType<typeof createDb>;

export { METRIC_POINT_ROWS_PER_STATEMENT, upsertMetricPoints } from "./points.ts";
export { poolOf } from "./pool.ts";
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
