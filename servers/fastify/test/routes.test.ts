// Drives the real Fastify server over HTTP: the plain routes of CONTRACT.md section 7 byte for byte.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, startApp } from "../src/app.js";

let app: App;
let base: string;

beforeAll(async () => {
  // No DATABASE_URL: the server starts, and /rest/users answers 503 (section 1: backends are lazy).
  delete process.env.DATABASE_URL;
  app = await startApp(0);
  base = `http://127.0.0.1:${app.port}`;
});
afterAll(() => app.close());

async function get(path: string) {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

describe("plain routes", () => {
  it("answers /health and /rest/time in canonical JSON", async () => {
    expect(await get("/health")).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const before = Date.now();
    const time = await get("/rest/time");
    expect(time.type).toMatch(/^application\/json\b/);
    expect(time.body).toMatch(/^\{"now_ms":\d{13}\}$/);
    expect(JSON.parse(time.body).now_ms).toBeGreaterThanOrEqual(before - 1_000);
  });

  it("refuses ids that are not 1 to 9 digits without a leading zero, before asking Postgres", async () => {
    for (const id of ["0", "abc", "01", "-1", "+1", "%2B1", "%201", "1e3", "1.5", "1234567890", "42x"]) {
      const bad = await get(`/rest/users/${id}`);
      expect(bad, id).toMatchObject({ status: 400, body: '{"error":"invalid id"}' });
      expect(bad.type).toMatch(/^application\/json\b/);
    }
  });

  it("answers 503 for a user while no database is configured, and 404 for unknown routes", async () => {
    expect(await get("/rest/users/42")).toMatchObject({
      status: 503,
      body: '{"error":"database unavailable"}',
    });
    expect(await get("/mcp")).toMatchObject({ status: 404, body: '{"error":"not found"}' });
  });

  it("reports the common /debug/runtime shape, one process and no MCP", async () => {
    const body = JSON.parse((await get("/debug/runtime")).body);
    expect(Object.keys(body)).toEqual([
      "runtime",
      "pid",
      "uptime_ms",
      "parallelism",
      "heap_used_bytes",
      "heap_total_bytes",
      "rss_bytes",
      "gc_count",
      "gc_pause_total_ms",
      "gc_pauses_recent",
      "threads",
      "goroutines",
      "mcp",
    ]);
    expect(body).toMatchObject({ runtime: { name: "node" }, pid: process.pid, parallelism: 1, mcp: null });
    expect(body.goroutines).toBeNull();
    expect(Number.isInteger(body.gc_count)).toBe(true);
  });
});
