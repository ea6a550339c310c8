/**
 * Idempotency-Key against a real web app on its own Redis with no worker (the matrices it queues
 * never run): a repeat gets the first answer and creates nothing, even while the first is in
 * flight; the same key with another body is a 422 naming the header; keys are the caller's own.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startWeb } from "../../scripts/lib/services.ts";
import { startOwnRedis, testDb, tokenInDb } from "./helpers.ts";

type Problem = { status: number; errors?: { field: string; message: string }[] };

const started: Service[] = [];
let lab = "";
const runName = `idempotent-${Date.now()}`;

beforeAll(async () => {
  const redis = await startOwnRedis("idempotency");
  started.push(redis);
  const web = await startWeb({
    databaseUrl: inject("databaseUrl"),
    redisUrl: redis.url,
    port: await freePort(),
  });
  started.push(web);
  lab = web.url;
}, 180_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  await testDb().run.deleteMany({ where: { name: runName } });
});

async function post(pathname: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${lab}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

const matrix = {
  name: runName,
  servers: ["go"],
  scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "once" } } }],
  loadLevels: [{ vus: 1 }],
  durationSec: 1,
  warmupSec: 0,
};

describe("Idempotency-Key", () => {
  it("answers a repeat with the first answer and creates nothing more", async () => {
    const key = `token-${Date.now()}`;
    const name = `idempotent-token-${Date.now()}`;
    const first = await post("/api/v1/tokens", { name }, { "idempotency-key": key });
    expect(first.status, first.text).toBe(201);
    const again = await post("/api/v1/tokens", { name }, { "idempotency-key": key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(await testDb().apiToken.count({ where: { name } })).toBe(1);

    // The same key with another body: a 422 naming the header, and nothing made.
    const other = await post("/api/v1/tokens", { name: `${name}-2` }, { "idempotency-key": key });
    expect(other.status).toBe(422);
    expect((other.body as Problem).errors?.[0]?.field).toBe("idempotency-key");
    expect(await testDb().apiToken.count({ where: { name: `${name}-2` } })).toBe(0);

    // Another caller's key of the same name is its own.
    const admin = await tokenInDb("idempotency-admin", null, "admin");
    const theirs = await post(
      "/api/v1/tokens",
      { name },
      { "idempotency-key": key, authorization: `Bearer ${admin.secret}` },
    );
    expect(theirs.status).toBe(201);
    expect(theirs.body.secret).not.toBe(first.body.secret);
    expect(await testDb().apiToken.count({ where: { name } })).toBe(2);

    const malformed = await post("/api/v1/tokens", { name }, { "idempotency-key": "two words" });
    expect(malformed.status).toBe(422);
    expect((malformed.body as Problem).errors?.[0]?.field).toBe("idempotency-key");
    await testDb().apiToken.deleteMany({ where: { name } });
  });

  it("queues a matrix once when repeats arrive while the first is in flight", async () => {
    const key = `matrix-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post("/api/v1/matrices", matrix, { "idempotency-key": key })),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length, JSON.stringify(answers.map((a) => a.status))).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.runId)).size).toBe(1);
    for (const busy of answers.filter((a) => a.status !== 201)) {
      expect(busy.status).toBe(409);
      expect(Number(busy.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((busy.body as Problem).errors?.[0]?.field).toBe("idempotency-key");
    }
    const late = await post("/api/v1/matrices", matrix, { "idempotency-key": key });
    expect(late.status).toBe(201);
    expect(late.body.runId).toBe(created[0]?.body.runId);
    expect(await testDb().run.count({ where: { name: runName } })).toBe(1);

    // Without a key every request creates, as before.
    expect((await post("/api/v1/matrices", matrix)).status).toBe(201);
    expect(await testDb().run.count({ where: { name: runName } })).toBe(2);
  });
});
