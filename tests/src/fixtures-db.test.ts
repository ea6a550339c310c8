/**
 * The worker's fixtures database on the lab's real Postgres (apps/worker/src/stages/fixtures.ts and
 * servers/fixtures' fixture-reset): every worker host resets its own database, so one host's reset
 * never touches another's cell; and servers get a reader role that may SELECT the users table and
 * nothing else (not the lab's tables), which a reference server works with.
 */
import path from "node:path";
import { loadServerCatalog } from "@perflab/catalog";
import { createDb, type Db } from "@perflab/db";
import { Fixtures, localDriver, type RunningServer, waitForHealthy } from "@perflab/worker";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";

const silent = { info() {}, debug() {}, warn() {}, error() {} } as never;

// Two worker hosts on one Postgres: ids a deployment could have (one needs its name changed).
const hosts = [`Fixtures-DB.A-${process.pid}`, `fixtures_db_b_${process.pid}`];

let labUrl: string;
let lab: Db;
let fixtures: Fixtures[] = [];
let env: Record<string, string>[] = [];
const clients: Db[] = [];
let server: RunningServer | undefined;

/** A Prisma client for raw SQL at `url` (with that URL's user), closed after the file. */
function connect(url: string): Db {
  const db = createDb(url, { poolSize: 2 });
  clients.push(db);
  return db;
}

/** `url` pointed at another database, same user and password. */
function inDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);
const userOf = (url: string) => new URL(url).username;

/** The promise's rejection message, or a failure when it resolved. */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as Error).message ?? error);
  }
  throw new Error("expected the query to be refused, it succeeded");
}

beforeAll(async () => {
  labUrl = inject("databaseUrl");
  lab = connect(labUrl);
  fixtures = hosts.map(
    (hostId) =>
      new Fixtures({
        fixturesDir: path.join(repoRoot, "servers/fixtures"),
        labDatabaseUrl: labUrl,
        log: silent,
        hostId,
      }),
  );
  env = await Promise.all(fixtures.map((f) => f.ensure()));
  for (const f of fixtures) await f.reset();
});

afterAll(async () => {
  await server?.stop(5_000).catch(() => undefined);
  for (const f of fixtures) await f.close();
  const created = env.map((e) => ({
    database: databaseOf(e.DATABASE_URL!),
    reader: userOf(e.DATABASE_URL!),
  }));
  for (const db of clients.splice(0)) if (db !== lab) await db.$disconnect();
  // The lab is left as it was: no fixtures database or reader of this file's hosts.
  for (const { database, reader } of created) {
    await lab.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await lab.$executeRawUnsafe(`DROP ROLE IF EXISTS "${reader}"`);
  }
  await lab?.$disconnect();
});

it("gives each worker host its own database and reader, never the lab's database or user", () => {
  const [a, b] = env.map((e) => new URL(e.DATABASE_URL!));
  const labUser = new URL(labUrl);
  expect(a!.pathname).toMatch(/^\/perflab_fixtures_fixtures_db_a_\d+_[0-9a-f]{8}$/);
  expect(b!.pathname).toBe(`/perflab_fixtures_fixtures_db_b_${process.pid}`);
  for (const url of [a!, b!]) {
    expect(url.username).toBe(`${url.pathname.slice(1)}_reader`);
    expect(url.username).not.toBe(labUser.username);
    expect(url.password).not.toBe(labUser.password);
    expect(url.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(url.host).toBe(labUser.host);
  }
  expect(a!.password).not.toBe(b!.password);
});

it("resets one host's database while a session of the other host's reader holds its users table", async () => {
  const [a, b] = env.map((e) => e.DATABASE_URL!);
  const readerA = connect(a!);
  const oid = async (db: Pick<Db, "$queryRawUnsafe">) =>
    (await db.$queryRawUnsafe<{ oid: number }[]>("SELECT 'users'::regclass::oid::int AS oid"))[0]!.oid;
  const before = await oid(readerA);
  await readerA.$transaction(
    async (tx) => {
      // An open transaction that read users holds a lock on that table, as a server's query would.
      const [row] = await tx.$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM users");
      expect(Number(row!.n)).toBe(100_000);
      const started = Date.now();
      // A shared table would make this reset wait for the lock (and fail after its 10 s lock timeout).
      await fixtures[1]!.reset();
      expect(Date.now() - started).toBeLessThan(8_000);
      const [user] = await tx.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM users WHERE id = 1");
      expect(user!.name).toBe("User 1");
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
  // Host A's table is the one it had (not re-created); host B's reader reads its fresh one.
  expect(await oid(readerA)).toBe(before);
  const [count] = await connect(b!).$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM users");
  expect(Number(count!.n)).toBe(100_000);
});

it("lets a server's DATABASE_URL read users and nothing else: no writes, no lab tables, no other host", async () => {
  const [a, b] = env.map((e) => e.DATABASE_URL!);
  const reader = connect(a!);
  const rows = await reader.$queryRawUnsafe<{ id: number; name: string; email: string }[]>(
    "SELECT * FROM users WHERE id = 1",
  );
  expect(rows).toMatchObject([{ id: 1, name: "User 1", email: "user1@example.com" }]);
  for (const sql of [
    "INSERT INTO users (id, name, email, created_at) VALUES (100001, 'x', 'x@example.com', now())",
    "UPDATE users SET name = 'x' WHERE id = 1",
    "DELETE FROM users WHERE id = 1",
    "DROP TABLE users",
    "CREATE TABLE mine (id int)",
    "CREATE TEMP TABLE mine (id int)",
  ]) {
    expect(await rejection(reader.$executeRawUnsafe(sql)), sql).toMatch(/permission denied|must be owner/);
  }
  // The lab's own database (runs, API tokens, its own users): the reader may not read them.
  const labDatabase = databaseOf(labUrl);
  const labAsReader = connect(inDatabase(a!, labDatabase));
  for (const table of ["runs", "api_tokens", "users"]) {
    expect(await rejection(labAsReader.$queryRawUnsafe(`SELECT * FROM ${table} LIMIT 1`)), table).toMatch(
      new RegExp(`permission denied for table ${table}`),
    );
  }
  // The lab's credentials still read them (the lab database was not altered).
  await expect(lab.$queryRawUnsafe("SELECT count(*) FROM runs")).resolves.toHaveLength(1);
  // Host B's database is closed to host A's reader.
  expect(await rejection(connect(inDatabase(a!, databaseOf(b!))).$queryRawUnsafe("SELECT 1"))).toMatch(
    /permission denied for database/,
  );
});

it("serves GET /rest/users/1 from the Go reference server with the reader's DATABASE_URL", async () => {
  const go = loadServerCatalog().find((s) => s.name === "go");
  expect(go, "servers/go/perflab.json").toBeDefined();
  await fixtures[0]!.reset();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  server = await localDriver.start({ server: go!, cellId: "fixtures-db-go", port, env: env[0]! });
  await waitForHealthy({ baseUrl, mcpPath: go!.mcpPath, timeoutMs: 60_000, exited: server.exited });
  const response = await fetch(`${baseUrl}/rest/users/1`);
  const body = await response.text();
  expect(response.status, body).toBe(200);
  expect(JSON.parse(body)).toMatchObject({ id: 1, name: "User 1", email: "user1@example.com" });
  expect((await fetch(`${baseUrl}/rest/users/100001`)).status).toBe(404);
  const exit = await server.stop(5_000);
  server = undefined;
  expect(exit).toMatchObject({ exitCode: 0 });
});
