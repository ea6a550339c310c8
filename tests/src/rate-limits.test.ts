/**
 * Rate limits against a real web app with tight limits of its own, on its own Redis (so the suite's
 * traffic neither counts nor is counted): a 429 with Retry-After and a problem naming who was
 * limited and which limit, per client address and per token, and live streams held per client.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startWeb } from "../../scripts/lib/services.ts";
import { queueRun, startOwnRedis, testDb, tokenInDb } from "./helpers.ts";

type Problem = { status: number; detail?: string; errors?: { field: string; message: string }[] };

const started: Service[] = [];
let lab = "";
const runIds: string[] = [];

beforeAll(async () => {
  const redis = await startOwnRedis("rate-limits");
  started.push(redis);
  const web = await startWeb({
    databaseUrl: inject("databaseUrl"),
    redisUrl: redis.url,
    port: await freePort(),
    env: {
      PERFLAB_RATE_LIMIT_TOKENS: "3",
      PERFLAB_RATE_LIMIT_MATRICES: "2",
      PERFLAB_LIVE_STREAMS_PER_CLIENT: "1",
    },
  });
  started.push(web);
  lab = web.url;
}, 180_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  await testDb().run.deleteMany({ where: { id: { in: runIds } } });
});

/** A request as from `address` (the last X-Forwarded-For entry is the client's address). */
async function from(address: string, pathname: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("x-forwarded-for", address);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const response = await fetch(`${lab}${pathname}`, { ...init, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text || "{}") as Problem };
}

function expectLimited(r: Awaited<ReturnType<typeof from>>, field: string, limit: RegExp) {
  expect(r.status).toBe(429);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  const retry = Number(r.headers.get("retry-after"));
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(r.body.errors?.[0]?.field).toBe(field);
  expect(r.body.errors?.[0]?.message).toMatch(limit);
}

describe("rate limits", () => {
  it("answer 429 with Retry-After once a client address passes a limit, and create nothing more", async () => {
    const name = `limited-${Date.now()}`;
    const mint = () => from("10.1.0.1", "/api/v1/tokens", { method: "POST", body: JSON.stringify({ name }) });
    for (let i = 0; i < 3; i++) expect((await mint()).status).toBe(201);
    const limited = await mint();
    expectLimited(limited, "(client address)", /^tokens: at most 3 requests to the tokens API a minute/);
    expect(limited.body.detail).toMatch(/\(tokens\)/);
    expect(await testDb().apiToken.count({ where: { name } })).toBe(3);
    // Another address has its own count.
    expect(
      (await from("10.1.0.2", "/api/v1/tokens", { method: "POST", body: JSON.stringify({ name }) })).status,
    ).toBe(201);
    await testDb().apiToken.deleteMany({ where: { name } });

    // Queueing counts each request, valid or not, before its body is read.
    const spec = JSON.stringify({ servers: [] });
    for (let i = 0; i < 2; i++)
      expect((await from("10.1.0.3", "/api/v1/matrices", { method: "POST", body: spec })).status).toBe(422);
    expectLimited(
      await from("10.1.0.3", "/api/v1/matrices", { method: "POST", body: spec }),
      "(client address)",
      /^matrices: at most 2 queued matrices a minute/,
    );
  });

  it("count a token wherever it comes from", async () => {
    const admin = await tokenInDb("rate-limited-admin", null, "admin");
    for (let i = 0; i < 3; i++) {
      expect((await from(`10.2.0.${i}`, "/api/v1/tokens", { token: admin.secret })).status).toBe(200);
    }
    expectLimited(
      await from("10.2.0.9", "/api/v1/tokens", { token: admin.secret }),
      "authorization",
      /^tokens: at most 3 requests to the tokens API a minute for token "rate-limited-admin"/,
    );
  });

  it("hold live streams per client while they are open", async () => {
    const { runId } = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }], {
      enqueue: false,
    });
    runIds.push(runId);
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${lab}/api/v1/runs/${runId}/events`, {
        headers: { "x-forwarded-for": "10.3.0.1" },
        signal: controller.signal,
      });
      return { response, close: () => controller.abort() };
    };
    const first = await open();
    expect(first.response.status).toBe(200);
    const second = await open();
    expect(second.response.status).toBe(429);
    const problem = (await second.response.json()) as Problem;
    expect(problem.errors?.[0]).toMatchObject({ field: "(client address)" });
    expect(problem.errors?.[0]?.message).toMatch(/^live-streams: at most 1 live streams open at once/);
    first.close();
    // The slot comes back once the lab sees the stream end: at once, or at its next heartbeat (15 s).
    let third: Awaited<ReturnType<typeof open>> | null = null;
    for (let i = 0; i < 100 && third?.response.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      third?.close();
      third = await open();
    }
    expect(third?.response.status).toBe(200);
    third?.close();
  }, 60_000);
});
