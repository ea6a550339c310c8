// Prisma's schema engine compiled to WebAssembly, talking to Postgres through @prisma/adapter-pg:
// the offline stand-in for the native engine that `prisma migrate` would download.
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlQueryable,
  type SqlResultSet,
} from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine, SchemaFilter, SchemasContainer } from "@prisma/schema-engine-wasm";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";

const require = createRequire(import.meta.url);
// @types/node leaves the WebAssembly global untyped without the DOM lib; this is all we use.
const { WebAssembly } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  };
};

export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const SCHEMA_PATH = path.join(REPO_ROOT, "prisma/schema.prisma");
export const MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma/migrations");
export const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

// The engine's introspection reads catalog columns of Postgres' one-byte `"char"` type (e.g.
// pg_constraint.contype) and wants them as Character values, but @prisma/adapter-pg 7.10 rejects the
// type as unsupported. The pg client below presents such columns as text with a marked name, and the
// adapter wrapper turns the marked columns back into Character columns.
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;
const CHAR_MARK = "\u0000char";

function markCharColumns<T>(result: T): T {
  for (const one of Array.isArray(result) ? result : [result]) {
    for (const field of (one as { fields?: { name: string; dataTypeID: number }[] } | undefined)?.fields ??
      []) {
      if (field.dataTypeID !== PG_CHAR_OID) continue;
      field.dataTypeID = PG_TEXT_OID;
      field.name += CHAR_MARK;
    }
  }
  return result;
}

class CharMarkingClient extends pg.Client {}
const baseQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(CharMarkingClient.prototype as { query: (...args: unknown[]) => unknown }).query = function (
  this: pg.Client,
  ...args: unknown[]
) {
  const last = args.at(-1);
  if (typeof last === "function") {
    args[args.length - 1] = (error: unknown, result: unknown) =>
      last(error, error ? result : markCharColumns(result));
    return baseQuery.apply(this, args);
  }
  const pending = baseQuery.apply(this, args);
  return pending instanceof Promise ? pending.then(markCharColumns) : pending;
};

function unmarkCharColumns(result: SqlResultSet): SqlResultSet {
  result.columnNames.forEach((name, i) => {
    if (!name.endsWith(CHAR_MARK)) return;
    result.columnNames[i] = name.slice(0, -CHAR_MARK.length);
    result.columnTypes[i] = ColumnTypeEnum.Character;
  });
  return result;
}

function withCharColumns<T extends SqlQueryable>(queryable: T): T {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => unmarkCharColumns(await queryRaw(query));
  return queryable;
}

function withCharAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) =>
    withCharColumns(await startTransaction(isolationLevel));
  return withCharColumns(adapter);
}

class CharAwarePrismaPg extends PrismaPg {
  override async connect() {
    return withCharAdapter(await super.connect()) as Awaited<ReturnType<PrismaPg["connect"]>>;
  }
  override async connectToShadowDb() {
    return withCharAdapter(await super.connectToShadowDb()) as Awaited<ReturnType<PrismaPg["connect"]>>;
  }
}

let instantiated: Promise<void> | undefined;

// The wasm glue reports Rust panics here before trapping; keep the message for the thrown error.
let lastPanic: string | undefined;

/** The message of the engine's last panic (a panic inside an async step surfaces as a bare trap). */
export function takePanicMessage(): string | undefined {
  const panic = lastPanic;
  lastPanic = undefined;
  return panic;
}

(globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
  set_message(message: string) {
    lastPanic = message;
  },
};

function instantiate(): Promise<void> {
  instantiated ??= (async () => {
    const wasmPath = path.join(
      path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg")),
      "schema_engine_bg.wasm",
    );
    const module = new WebAssembly.Module(await readFile(wasmPath));
    const instance = new WebAssembly.Instance(module, {
      "./schema_engine_bg.js": bindings,
    });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  return instantiated;
}

export async function readSchema(): Promise<SchemasContainer> {
  return { files: [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, "utf8") }] };
}

export interface OpenSchemaEngine {
  engine: SchemaEngine;
  close: () => Promise<void>;
}

/**
 * A schema engine connected to `databaseUrl`. Diffing from migrations needs a shadow database:
 * the adapter creates and drops one on the same server, so the role must be allowed CREATE DATABASE.
 */
export async function openSchemaEngine(
  databaseUrl: string,
  options: { log?: (line: string) => void } = {},
): Promise<OpenSchemaEngine> {
  await instantiate();
  // Discrete fields, not a connection string or a pg.Pool: the adapter builds the shadow database's
  // pool by spreading this config with another `database` (a Pool hides its password from spreads).
  const url = new URL(databaseUrl);
  const adapter = bindMigrationAwareSqlAdapterFactory(
    new CharAwarePrismaPg({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)),
      max: 2,
      // The adapter types pg with a newer @types/pg than the workspace's; same runtime class.
      Client: CharMarkingClient as never,
      // Idle connections close at once, so none is left to error out when the server stops
      // (the adapter's shadow-database pool has no error listener).
      idleTimeoutMillis: 1,
    }),
  );
  const schema = await readSchema();
  const engine = await bindings.SchemaEngine.new(
    { datamodels: schema.files.map((file) => [file.path, file.content]) },
    (line: string) => options.log?.(line),
    adapter,
  );
  return {
    engine: withAdapterErrors(engine, adapter.errorRegistry),
    close: async () => {
      engine.free();
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}

/** The migrations folder in the shape the engine expects (as the Prisma CLI builds it). */
export async function readMigrationList(migrationsDir: string = MIGRATIONS_DIR): Promise<MigrationList> {
  const lockPath = "migration_lock.toml";
  const lockContent = await readFile(path.join(migrationsDir, lockPath), "utf8").catch(() => null);
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const directories = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .map(async (name) => {
        const content = await readFile(path.join(migrationsDir, name, "migration.sql"), "utf8")
          .then((value) => ({ tag: "ok" as const, value }))
          .catch((error: Error) => ({ tag: "error" as const, value: error.message }));
        return { path: name, migrationFile: { path: "migration.sql", content } };
      }),
  );
  return {
    baseDir: migrationsDir,
    lockfile: { path: lockPath, content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories: directories,
  };
}

/** The engine reports driver errors as "External error id#N"; put the driver's message back in. */
function withAdapterErrors(
  engine: SchemaEngine,
  registry: { consumeError(id: number): { error: unknown } | undefined },
): SchemaEngine {
  return new Proxy(engine, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          const id = /External error id#(\d+)/.exec(String(error))?.[1];
          const cause = id === undefined ? undefined : registry.consumeError(Number(id))?.error;
          const panic = takePanicMessage();
          if (panic !== undefined) throw new Error(`schema engine panicked: ${panic}`, { cause: error });
          if (cause === undefined) throw error;
          throw new Error(
            `${String(error).split("\n")[0]}: ${cause instanceof Error ? cause.message : JSON.stringify(cause)}`,
            { cause: error },
          );
        });
      };
    },
  });
}
