import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MIGRATIONS_DIR,
  NO_FILTER,
  openSchemaEngine,
  REPO_ROOT,
  readMigrationList,
  readSchema,
} from "../scripts/schema-engine.ts";
import { createDb, type Db } from "./index.ts";
import { migrate } from "./migrate.ts";
import { startTestPostgres, type TestPostgres } from "./testing.ts";

const EMPTY_MIGRATION = "-- This is an empty migration.";

let server: TestPostgres;
let databaseCount = 0;

/** A fresh, empty database on the shared test server. */
async function freshDatabase(): Promise<string> {
  const name = `db_${++databaseCount}`;
  await withClient(server.url, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function localMigrations(): Promise<{ name: string; sha256: string }[]> {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  return Promise.all(
    names.sort().map(async (name) => ({
      name,
      sha256: createHash("sha256")
        .update(await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql")))
        .digest("hex"),
    })),
  );
}

const tableColumns = (url: string, table: string) =>
  withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1
        ORDER BY ordinal_position`,
      [table],
    );
    return rows;
  });

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server?.stop();
});

describe("migrate", () => {
  it("applies every migration once, then does nothing", async () => {
    const url = await freshDatabase();
    const local = await localMigrations();
    expect(local.length).toBeGreaterThan(0);

    const first = await migrate(url);
    expect(first.applied).toEqual(local.map((m) => m.name));
    const second = await migrate(url);
    expect(second).toEqual({ applied: [], edited: [] });

    const tables = await withClient(url, async (client) => {
      const { rows } = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      return rows.map((row) => row.table_name);
    });
    expect(tables).toEqual(
      expect.arrayContaining([
        "_prisma_migrations",
        "workspaces",
        "users",
        "memberships",
        "api_tokens",
        "server_definitions",
        "runs",
        "cells",
        "cell_summaries",
        "metric_points",
        "reports",
      ]),
    );
  });

  it("records each migration with Prisma's columns and the sha256 of its migration.sql", async () => {
    const url = await freshDatabase();
    await migrate(url);
    const rows = await withClient(url, async (client) => {
      const result = await client.query(
        `SELECT id, checksum, migration_name, logs, started_at, finished_at, rolled_back_at, applied_steps_count
           FROM _prisma_migrations ORDER BY started_at, migration_name`,
      );
      return result.rows;
    });
    const local = await localMigrations();
    expect(rows.map((row) => [row.migration_name, row.checksum])).toEqual(
      local.map((m) => [m.name, m.sha256]),
    );
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("leaves a history Prisma's schema engine treats as fully applied and free of drift", async () => {
    const url = await freshDatabase();
    await migrate(url);
    const { engine, close } = await openSchemaEngine(url);
    try {
      const migrationsList = await readMigrationList();
      const diagnosis = await engine.diagnoseMigrationHistory({
        migrationsList,
        optInToShadowDatabase: false,
        filters: NO_FILTER,
      });
      expect(diagnosis).toMatchObject({
        history: null,
        failedMigrationNames: [],
        editedMigrationNames: [],
        hasMigrationsTable: true,
      });
      // What `prisma migrate deploy` runs: nothing left to apply.
      const deploy = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
      expect(deploy.appliedMigrationNames).toEqual([]);
      // The migrated database matches schema.prisma exactly.
      const drift = await engine.diff({
        // The database the engine is connected to (`--from-config-datasource`).
        from: { tag: "schemaDatasource", ...(await readSchema()), configDir: REPO_ROOT },
        to: { tag: "schemaDatamodel", ...(await readSchema()) },
        script: true,
        exitCode: null,
        filters: NO_FILTER,
      });
      expect(drift.stdout?.trim()).toBe(EMPTY_MIGRATION);
      // And it does look at the database: a stray column shows up as drift.
      await withClient(url, (client) => client.query('ALTER TABLE "runs" ADD COLUMN "stray" INT'));
      const drifted = await engine.diff({
        from: { tag: "schemaDatasource", ...(await readSchema()), configDir: REPO_ROOT },
        to: { tag: "schemaDatamodel", ...(await readSchema()) },
        script: true,
        exitCode: null,
        filters: NO_FILTER,
      });
      expect(drifted.stdout).toContain('DROP COLUMN "stray"');
    } finally {
      await close();
    }
  });

  it("accepts a history written by Prisma's schema engine, with an identical migrations table", async () => {
    const byEngine = await freshDatabase();
    const { engine, close } = await openSchemaEngine(byEngine);
    try {
      const deploy = await engine.applyMigrations({
        migrationsList: await readMigrationList(),
        filters: NO_FILTER,
      });
      expect(deploy.appliedMigrationNames).toEqual((await localMigrations()).map((m) => m.name));
    } finally {
      await close();
    }
    expect(await migrate(byEngine)).toEqual({ applied: [], edited: [] });

    const byUs = await freshDatabase();
    await migrate(byUs);
    expect(await tableColumns(byUs, "_prisma_migrations")).toEqual(
      await tableColumns(byEngine, "_prisma_migrations"),
    );
    const checksums = (url: string) =>
      withClient(
        url,
        async (client) =>
          (await client.query("SELECT migration_name, checksum FROM _prisma_migrations ORDER BY 1")).rows,
      );
    expect(await checksums(byUs)).toEqual(await checksums(byEngine));
  });

  it("rolls back a failing migration, records the failure and stops until it is marked rolled back", async () => {
    const url = await freshDatabase();
    const dir = await mkdtemp(path.join(os.tmpdir(), "perflab-migrations-"));
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      const broken = "99990101000000_broken";
      await cp(path.join(dir, (await localMigrations())[0]!.name), path.join(dir, broken), {
        recursive: true,
      });
      await writeFile(
        path.join(dir, broken, "migration.sql"),
        'CREATE TABLE "half_done" (id INT);\nSELECT 1 / 0;\n',
      );

      await expect(migrate(url, { migrationsDir: dir })).rejects.toThrow(
        /99990101000000_broken.*division by zero/,
      );
      const state = await withClient(url, async (client) => ({
        halfDone: (await client.query("SELECT to_regclass('half_done') AS t")).rows[0].t,
        row: (
          await client.query(
            "SELECT finished_at, rolled_back_at, logs FROM _prisma_migrations WHERE migration_name = $1",
            [broken],
          )
        ).rows,
      }));
      expect(state.halfDone).toBeNull();
      expect(state.row).toHaveLength(1);
      expect(state.row[0]).toMatchObject({ finished_at: null, rolled_back_at: null });
      expect(state.row[0].logs).toMatch(/division by zero/);

      await expect(migrate(url, { migrationsDir: dir })).rejects.toThrow(/P3009/);

      await writeFile(path.join(dir, broken, "migration.sql"), 'CREATE TABLE "half_done" (id INT);\n');
      await withClient(url, (client) =>
        client.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = $1", [
          broken,
        ]),
      );
      expect((await migrate(url, { migrationsDir: dir })).applied).toEqual([broken]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports applied migrations whose file changed afterwards", async () => {
    const url = await freshDatabase();
    const dir = await mkdtemp(path.join(os.tmpdir(), "perflab-migrations-"));
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      await migrate(url, { migrationsDir: dir });
      const first = (await localMigrations())[0]!.name;
      const file = path.join(dir, first, "migration.sql");
      await writeFile(file, `${await readFile(file, "utf8")}\n-- edited\n`);
      expect(await migrate(url, { migrationsDir: dir })).toEqual({ applied: [], edited: [first] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a non-empty database that has no migrations table", async () => {
    const url = await freshDatabase();
    await withClient(url, (client) => client.query("CREATE TABLE unrelated (id INT)"));
    await expect(migrate(url)).rejects.toThrow(/not empty/);
  });

  it("waits for Prisma Migrate's advisory lock", async () => {
    const url = await freshDatabase();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(72707369)");
      let done = false;
      const running = migrate(url).then((result) => {
        done = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(done).toBe(false);
      await holder.query("SELECT pg_advisory_unlock(72707369)");
      expect((await running).applied.length).toBeGreaterThan(0);
    } finally {
      await holder.end();
    }
  });
});

describe("schema.prisma and prisma/migrations", () => {
  it("agree: the migrations produce exactly the schema, so no migration is missing", async () => {
    const { engine, close } = await openSchemaEngine(server.url);
    try {
      const schema = await readSchema();
      const fromMigrations = { tag: "migrations" as const, ...(await readMigrationList()) };
      const diff = (content: string) =>
        engine.diff({
          from: fromMigrations,
          to: { tag: "schemaDatamodel", files: [{ path: schema.files[0]!.path, content }] },
          script: true,
          exitCode: null,
          filters: NO_FILTER,
        });
      expect((await diff(schema.files[0]!.content)).stdout?.trim()).toBe(EMPTY_MIGRATION);
      // The same check notices a change, so the assertion above can fail.
      const changed = schema.files[0]!.content.replace(
        /model Workspace \{/,
        "model Workspace {\n  motto String?",
      );
      expect((await diff(changed)).stdout).toContain('ADD COLUMN     "motto" TEXT');
    } finally {
      await close();
    }
  });
});

describe("the Prisma client on a migrated database", () => {
  let db: Db;

  beforeAll(async () => {
    const url = await freshDatabase();
    await migrate(url);
    db = createDb(url, { poolSize: 2 });
  });

  afterAll(async () => {
    await db?.$disconnect();
  });

  const createRun = async () => {
    const workspace = await db.workspace.create({
      data: { slug: `ws-${Math.random().toString(36).slice(2)}`, name: "Lab" },
    });
    return db.run.create({
      data: {
        workspaceId: workspace.id,
        source: "ui",
        name: "go vs node",
        spec: { servers: ["go-sdk", "node-sdk"], scenarios: ["echo"] },
        cellsTotal: 1,
        cells: {
          create: {
            index: 0,
            serverName: "go-sdk",
            scenario: "echo",
            loadLevel: { vus: 20 },
            durationSeconds: 30,
            warmupSeconds: 5,
            driver: "local",
            hostFingerprint: { cpuModel: "test", cores: 2, kernel: "6.1", memoryBytes: 1024 },
          },
        },
      },
      include: { cells: true },
    });
  };

  it("stores a run, its cell, per-second points and a summary", async () => {
    const run = await createRun();
    const cell = run.cells[0]!;
    expect(cell).toMatchObject({ status: "queued", round: 1, attempts: 0, oomKilled: false });

    const start = new Date("2026-01-01T00:00:00.000Z");
    await db.metricPoint.createMany({
      data: [0, 1, 2].map((second) => ({
        cellId: cell.id,
        t: new Date(start.getTime() + second * 1000),
        second,
        phase: second === 0 ? ("warmup" as const) : ("measure" as const),
        requests: 100 + second,
        errors: 0,
        ops: 50,
        rps: 100 + second,
        latencyP50Ms: 1.5,
        latencyP99Ms: 4.25,
        rssBytes: 12_345_678n,
      })),
    });
    await db.cellSummary.create({
      data: {
        cellId: cell.id,
        requests: 5_000_000_000n,
        errors: 0n,
        ops: 2_500_000_000n,
        httpRps: 100,
        opsRps: 50,
        requestsPerOp: 2,
        windowStart: start,
        windowEnd: new Date(start.getTime() + 3000),
        windowSeconds: 3,
        histogram: "HISTFAAAA",
      },
    });

    const loaded = await db.cell.findUniqueOrThrow({
      where: { runId_index: { runId: run.id, index: 0 } },
      include: { summary: true, metricPoints: { orderBy: { t: "asc" }, where: { phase: "measure" } } },
    });
    expect(loaded.metricPoints.map((point) => point.second)).toEqual([1, 2]);
    expect(loaded.metricPoints[0]!.rssBytes).toBe(12_345_678n);
    expect(loaded.summary!.requests).toBe(5_000_000_000n);
    expect(loaded.hostFingerprint).toEqual({ cpuModel: "test", cores: 2, kernel: "6.1", memoryBytes: 1024 });
  });

  it("upserts a metric point on (cellId, t) so a repeated write leaves one row", async () => {
    const run = await createRun();
    const cellId = run.cells[0]!.id;
    const t = new Date("2026-01-01T00:00:07.000Z");
    const write = (requests: number) =>
      db.metricPoint.upsert({
        where: { cellId_t: { cellId, t } },
        create: { cellId, t, second: 7, phase: "measure", requests, errors: 0, ops: 1, rps: requests },
        update: { requests, rps: requests },
      });
    await write(10);
    await write(12);
    const points = await db.metricPoint.findMany({ where: { cellId } });
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ requests: 12, rps: 12, second: 7 });
  });

  it("deleting a run removes its cells, summaries and metric points", async () => {
    const run = await createRun();
    const cellId = run.cells[0]!.id;
    await db.metricPoint.create({
      data: { cellId, t: new Date(), second: 0, phase: "warmup", requests: 1, errors: 0, ops: 1, rps: 1 },
    });
    await db.cellSummary.create({
      data: {
        cellId,
        requests: 1n,
        errors: 0n,
        ops: 1n,
        httpRps: 1,
        opsRps: 1,
        windowStart: new Date(),
        windowEnd: new Date(),
        windowSeconds: 0,
        histogram: "",
      },
    });
    await db.run.delete({ where: { id: run.id } });
    expect(await db.cell.count({ where: { id: cellId } })).toBe(0);
    expect(await db.cellSummary.count({ where: { cellId } })).toBe(0);
    expect(await db.metricPoint.count({ where: { cellId } })).toBe(0);
  });

  it("keeps built-in server names unique although their workspace is null", async () => {
    const builtin = {
      name: `go-sdk-${Math.random().toString(36).slice(2)}`,
      language: "go",
      runtime: "go1.26",
      sdkName: "github.com/modelcontextprotocol/go-sdk",
      sdkVersion: "v1.8.0",
      source: "builtin" as const,
      manifest: {},
    };
    await db.serverDefinition.create({ data: builtin });
    await expect(db.serverDefinition.create({ data: builtin })).rejects.toMatchObject({ code: "P2002" });
  });
});
