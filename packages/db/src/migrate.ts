import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/**
 * Applies prisma/migrations without the Prisma schema engine, keeping `_prisma_migrations` exactly as
 * Prisma Migrate does (same table, sha256 checksums, lock id and failure rules), so `prisma migrate
 * deploy` run later with a real engine sees the same history.
 */

/** Prisma Migrate's advisory lock id: concurrent migrators (ours or Prisma's) wait for each other. */
export const PRISMA_MIGRATE_LOCK_ID = 72707369;

// Not `new URL(literal, import.meta.url)`: bundlers treat that as an asset import of a directory.
export const DEFAULT_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../prisma/migrations",
);

export interface LocalMigration {
  name: string;
  script: string;
  checksum: string;
}

export interface MigrateOptions {
  /** Defaults to the repository's prisma/migrations (resolved from this file). */
  migrationsDir?: string;
  log?: (message: string) => void;
}

export interface MigrateResult {
  /** Migrations applied by this call, in order. */
  applied: string[];
  /** Applied migrations whose migration.sql changed since (Prisma warns about these too). */
  edited: string[];
}

interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  logs: string | null;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

// The DDL Prisma's schema engine uses for PostgreSQL.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export function migrationChecksum(script: string): string {
  return createHash("sha256").update(script, "utf8").digest("hex");
}

/** Migration folders in the order Prisma applies them (by folder name). */
export async function readMigrations(
  migrationsDir: string = DEFAULT_MIGRATIONS_DIR,
): Promise<LocalMigration[]> {
  const lockfile = await readFile(path.join(migrationsDir, "migration_lock.toml"), "utf8").catch(() => null);
  const provider = lockfile?.match(/^\s*provider\s*=\s*"([^"]*)"/m)?.[1];
  if (provider !== undefined && provider !== "postgresql") {
    throw new Error(
      `migration_lock.toml names provider "${provider}"; these migrations are not for PostgreSQL`,
    );
  }
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(path.join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, script, checksum: migrationChecksum(script) };
    }),
  );
}

export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A session lock, held across the per-migration transactions, as Prisma does.
    await client.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK_ID})`);
    try {
      await ensureMigrationsTable(client);
      const rows = (
        await client.query<MigrationRow>(
          `SELECT id, checksum, migration_name, logs, started_at, finished_at, rolled_back_at
             FROM "_prisma_migrations" ORDER BY started_at ASC`,
        )
      ).rows;
      throwOnFailedMigrations(rows);

      const live = rows.filter((row) => row.rolled_back_at === null);
      const edited = migrations
        .filter((m) => live.some((row) => row.migration_name === m.name && row.checksum !== m.checksum))
        .map((m) => m.name);
      for (const name of edited) log(`migration ${name} was edited after it was applied`);

      const pending = migrations.filter((m) => !live.some((row) => row.migration_name === m.name));
      const applied: string[] = [];
      for (const migration of pending) {
        log(`applying ${migration.name}`);
        await applyMigration(client, migration);
        applied.push(migration.name);
      }
      return { applied, edited };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATE_LOCK_ID})`).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

async function ensureMigrationsTable(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  if (rows.some((row) => row.name === "_prisma_migrations")) return;
  // Prisma's P3005: never run the first migration over a schema something else created.
  if (rows.length > 0) {
    throw new Error(
      `The database schema is not empty (${rows.length} tables) and has no _prisma_migrations table. ` +
        "Refusing to migrate it; baseline it with `prisma migrate resolve --applied <migration>` first.",
    );
  }
  await client.query(CREATE_MIGRATIONS_TABLE);
}

function throwOnFailedMigrations(rows: MigrationRow[]): void {
  const failed = rows.filter((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed.length === 0) return;
  const details = failed
    .map((row) => {
      const logs = row.logs?.trim() ? ` with the following logs:\n${row.logs.trim()}` : "";
      return `The \`${row.migration_name}\` migration started at ${row.started_at.toISOString()} failed${logs}`;
    })
    .join("\n");
  throw new Error(
    "Found failed migrations in the target database, new migrations will not be applied (P3009).\n" +
      `${details}\nFix the migration, then mark it rolled back (\`prisma migrate resolve --rolled-back <name>\`, ` +
      "or set rolled_back_at on its _prisma_migrations row) and migrate again.",
  );
}

async function applyMigration(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
      [id, migration.checksum, migration.name],
    );
    // No parameters: the simple query protocol runs a multi-statement script.
    await client.query(migration.script);
    await client.query(
      `UPDATE "_prisma_migrations"
          SET applied_steps_count = applied_steps_count + 1, finished_at = clock_timestamp()
        WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    const logs = error instanceof Error ? error.message : String(error);
    // The script's changes are rolled back, but the failure is recorded like Prisma's: later runs
    // stop until someone marks it rolled back, instead of silently retrying a broken migration.
    await client
      .query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, logs)
         VALUES ($1, $2, $3, now(), $4)`,
        [id, migration.checksum, migration.name, logs],
      )
      .catch(() => {});
    throw new Error(`Migration ${migration.name} failed: ${logs}`, { cause: error });
  }
}
