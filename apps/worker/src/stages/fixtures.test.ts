import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ownerAlive, ownerMarker } from "../drivers/orphans.ts";
import { freePort } from "../host.ts";
import { checkExternalFixtureApi, Fixtures, fixturesDatabaseNames } from "./fixtures.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(status: number): Promise<string> {
  const server = createServer((_req, res) => {
    res.statusCode = status;
    res.end("ok");
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

describe("an external fixture API (PERFLAB_FIXTURE_API_URL)", () => {
  it("passes the health check when GET /health answers 200", async () => {
    await expect(checkExternalFixtureApi(await serve(200), 1_000)).resolves.toBeUndefined();
  });

  it("fails with the variable's name and the reason when nothing listens", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await expect(checkExternalFixtureApi(url, 300)).rejects.toThrow(
      new RegExp(
        `fixture API at ${url} \\(PERFLAB_FIXTURE_API_URL\\) does not answer GET /health \\(ECONNREFUSED\\)`,
      ),
    );
  });

  it("fails when /health answers with an error status", async () => {
    await expect(checkExternalFixtureApi(await serve(503), 300)).rejects.toThrow(/HTTP 503/);
  });

  it("is checked before the worker starts anything, so a dead API starts no fixtures", async () => {
    const url = `http://127.0.0.1:${await freePort()}/`;
    const fixtures = new Fixtures({
      fixturesDir: "/nonexistent",
      labDatabaseUrl: "postgres://x:y@127.0.0.1:1/perflab",
      log: pino({ level: "silent" }),
      apiUrl: url,
      apiTimeoutMs: 200,
    });
    // The trailing slash is dropped from the URL servers get and the error names.
    await expect(fixtures.ensure()).rejects.toThrow(/fixture API at http:\/\/127\.0\.0\.1:\d+ \(/);
    await fixtures.close();
  });
});

describe("fixture processes the worker starts itself", () => {
  let dir = "";
  const hostId = `fixtures-test-${process.pid}`;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "perflab-fixtures-test-"));
    // A fixture API that never answers: it records its pid and owner marker, then sleeps.
    await mkdir(path.join(dir, "bin"));
    await writeFile(
      path.join(dir, "bin/fixture-api"),
      `#!/bin/sh\necho "$PERFLAB_OWNER" > '${dir}/owner'\necho $$ > '${dir}/pid'\nexec sleep 600\n`,
    );
    await chmod(path.join(dir, "bin/fixture-api"), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const fixtures = (options: { fixturesDir: string; redisBin?: string }) =>
    new Fixtures({
      ...options,
      labDatabaseUrl: "postgres://x:y@127.0.0.1:1/perflab",
      log: pino({ level: "silent" }),
      hostId,
      startTimeoutMs: 1_500,
    });

  async function untilDead(pid: number) {
    for (let i = 0; i < 50 && ownerAlive(pid, null); i++) await new Promise((r) => setTimeout(r, 20));
    return !ownerAlive(pid, null);
  }

  it("fails the start naming the fixture API's binary when it does not exist, without crashing the worker", async () => {
    const f = fixtures({ fixturesDir: "/nonexistent/fixtures" });
    await expect(f.ensure()).rejects.toThrow(
      "could not start /nonexistent/fixtures/bin/fixture-api: spawn /nonexistent/fixtures/bin/fixture-api ENOENT",
    );
    await f.close();
  });

  it("fails the start naming redis-server when it cannot be started, and kills the fixture API it started", async () => {
    const f = fixtures({ fixturesDir: dir, redisBin: "/nonexistent/redis-server" });
    await expect(f.ensure()).rejects.toThrow(/could not start \/nonexistent\/redis-server: .*ENOENT/);
    const pid = Number(await readFile(path.join(dir, "pid"), "utf8"));
    expect(await untilDead(pid)).toBe(true);
    await f.close();
  });

  it("kills the children it started when they do not become healthy, so the next start begins afresh", async () => {
    const f = fixtures({ fixturesDir: dir });
    await expect(f.ensure()).rejects.toThrow(/fixture-api|\/health did not become healthy within 1500 ms/);
    const first = Number(await readFile(path.join(dir, "pid"), "utf8"));
    expect(await untilDead(first)).toBe(true);
    // Children carry the owner marker, so a later worker on this host reaps them if this one dies.
    expect((await readFile(path.join(dir, "owner"), "utf8")).trim()).toBe(ownerMarker(hostId));
    await expect(f.ensure()).rejects.toThrow(/did not become healthy/);
    const second = Number(await readFile(path.join(dir, "pid"), "utf8"));
    expect(second).not.toBe(first);
    expect(await untilDead(second)).toBe(true);
    await f.close();
  });
});

describe("fixture processes that die or hang between cells", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "perflab-fixtures-restart-test-"));
    await mkdir(path.join(dir, "bin"));
    // Stand-ins that answer as the real ones do: GET /health, and PING on the port after --port.
    await writeFile(
      path.join(dir, "bin/fixture-api"),
      `#!${process.execPath}
require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, "api.pid"))}, String(process.pid));
require("node:http").createServer((q, s) => s.end("ok")).listen(Number(process.env.PORT), "127.0.0.1");
`,
    );
    await writeFile(
      path.join(dir, "redis-server"),
      `#!${process.execPath}
require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, "redis.pid"))}, String(process.pid));
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
require("node:net").createServer((c) => c.on("data", () => c.write("+PONG\\r\\n"))).listen(port, "127.0.0.1");
`,
    );
    await chmod(path.join(dir, "bin/fixture-api"), 0o755);
    await chmod(path.join(dir, "redis-server"), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // Closed after each test, passed or not, so no stand-in outlives it.
  const opened: Fixtures[] = [];
  afterEach(async () => {
    for (const f of opened.splice(0)) await f.close();
  });
  const fixtures = () => {
    const f = new Fixtures({
      fixturesDir: dir,
      redisBin: path.join(dir, "redis-server"),
      labDatabaseUrl: "postgres://x:y@127.0.0.1:1/perflab",
      log: pino({ level: "silent" }),
      hostId: `fixtures-restart-test-${process.pid}`,
      startTimeoutMs: 5_000,
      checkTimeoutMs: 500,
    });
    opened.push(f);
    return f;
  };
  const pidOf = async (name: string) => Number(await readFile(path.join(dir, name), "utf8"));
  async function killAndWait(pid: number) {
    process.kill(pid, "SIGKILL");
    for (let i = 0; i < 100 && ownerAlive(pid, null); i++) await new Promise((r) => setTimeout(r, 20));
    // The worker notices the exit through the child's own events: give them a turn.
    await new Promise((r) => setTimeout(r, 50));
  }
  const health = (url: string) =>
    fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status);

  it("keeps children that are alive and answer", async () => {
    const f = fixtures();
    const first = await f.ensure();
    const api = await pidOf("api.pid");
    expect(await f.ensure()).toEqual(first);
    expect(await pidOf("api.pid")).toBe(api);
    await f.close();
  });

  it("starts the fixture API again when it died after the last cell", async () => {
    const f = fixtures();
    const first = await f.ensure();
    const api = await pidOf("api.pid");
    await killAndWait(api);
    const second = await f.ensure();
    const restarted = await pidOf("api.pid");
    expect(restarted).not.toBe(api);
    expect(ownerAlive(restarted, null)).toBe(true);
    expect(await health(second.FIXTURE_API_URL!)).toBe(200);
    // The pair is started afresh: the old Redis is not left beside the new one.
    expect(second.REDIS_URL).not.toBe(first.REDIS_URL);
    await f.close();
  });

  it("starts them again when the fixture Redis died", async () => {
    const f = fixtures();
    const first = await f.ensure();
    await killAndWait(await pidOf("redis.pid"));
    const second = await f.ensure();
    expect(second.REDIS_URL).not.toBe(first.REDIS_URL);
    expect(await health(second.FIXTURE_API_URL!)).toBe(200);
    await f.close();
  });

  it("starts them again when the fixture API is alive but no longer answers", async () => {
    const f = fixtures();
    await f.ensure();
    const api = await pidOf("api.pid");
    process.kill(api, "SIGSTOP");
    try {
      const second = await f.ensure();
      expect(await pidOf("api.pid")).not.toBe(api);
      expect(await health(second.FIXTURE_API_URL!)).toBe(200);
      // The hung one was killed, not left to wake up beside its replacement.
      for (let i = 0; i < 100 && ownerAlive(api, null); i++) await new Promise((r) => setTimeout(r, 20));
      expect(ownerAlive(api, null)).toBe(false);
    } finally {
      if (ownerAlive(api, null)) process.kill(api, "SIGKILL");
      await f.close();
    }
  });

  it("fails naming the dead child and why it could not come back", async () => {
    const f = fixtures();
    await f.ensure();
    const api = path.join(dir, "bin/fixture-api");
    const working = await readFile(api, "utf8");
    try {
      await writeFile(api, "#!/bin/sh\nexit 3\n");
      await killAndWait(await pidOf("api.pid"));
      await expect(f.ensure()).rejects.toThrow(
        `${api} exited with SIGKILL, and starting the fixtures again failed: ${api} exited with 3`,
      );
    } finally {
      await writeFile(api, working);
      await f.close();
    }
  });
});

describe("the fixtures database of a host (fixturesDatabaseNames)", () => {
  it("is perflab_fixtures_<host id> when the id is already a lowercase name, its reader <database>_reader", () => {
    expect(fixturesDatabaseNames("worker1")).toEqual({
      database: "perflab_fixtures_worker1",
      reader: "perflab_fixtures_worker1_reader",
    });
  });

  it("adds a hash of the id when the name had to change, so ids that differ only there stay apart", () => {
    const names = ["Worker-1", "worker.1", "WORKER-1"].map((id) => fixturesDatabaseNames(id).database);
    for (const name of names) expect(name).toMatch(/^perflab_fixtures_worker_1_[0-9a-f]{8}$/);
    names.push(fixturesDatabaseNames("worker_1").database);
    expect(names[3]).toBe("perflab_fixtures_worker_1");
    expect(new Set(names).size).toBe(names.length);
    // Deterministic: a restarted worker finds its database again.
    expect(fixturesDatabaseNames("Worker-1")).toEqual(fixturesDatabaseNames("Worker-1"));
  });

  it("cuts long ids (with a hash) so the role name stays within Postgres's 63 bytes", () => {
    const long = "a".repeat(200);
    const { database, reader } = fixturesDatabaseNames(long);
    expect(Buffer.byteLength(reader)).toBeLessThanOrEqual(63);
    expect(reader).toBe(`${database}_reader`);
    expect(database).toMatch(/^perflab_fixtures_a+_[0-9a-f]{8}$/);
    expect(fixturesDatabaseNames(`${long}b`).database).not.toBe(database);
    // Exactly at the limit: kept as it is; one more character: cut and hashed.
    const fits = "b".repeat(63 - "perflab_fixtures_".length - "_reader".length);
    expect(fixturesDatabaseNames(fits).reader).toBe(`perflab_fixtures_${fits}_reader`);
    expect(Buffer.byteLength(fixturesDatabaseNames(`${fits}b`).reader)).toBe(63);
    for (const id of ["ünïcödé-høst.example.com", "x".repeat(63), "", "İstanbul"]) {
      const names = fixturesDatabaseNames(id);
      expect(names.reader).toMatch(/^[a-z0-9_]{1,63}$/);
    }
  });
});
