import { createServer, type Server } from "node:http";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../host.ts";
import { checkExternalFixtureApi, Fixtures } from "./fixtures.ts";

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
