import { PrismaPg } from "@prisma/adapter-pg";
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

/** A Prisma client over node-postgres (driver adapter: no query engine binary). */
export function createDb(databaseUrl: string, options: CreateDbOptions = {}) {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  return new PrismaClient({ adapter });
}

export type Db = ReturnType<typeof createDb>;

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
