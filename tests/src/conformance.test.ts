/**
 * Conformance of every reference server to servers/CONTRACT.md, through the official MCP
 * TypeScript SDK client over Streamable HTTP: same tools and schemas, same results, clean errors,
 * 100 concurrent sessions, GET stream and DELETE, and the common /debug/runtime shape.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CatalogEntry, loadServerCatalog } from "@perflab/contracts/server-catalog";
import { Fixtures, localDriver, type RunningServer, waitForHealthy } from "@perflab/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";

type Vector = {
  name: string;
  tool: string;
  arguments: Record<string, unknown>;
  text?: string;
  text_bytes?: number;
  text_sha256?: string;
};
const vectors = JSON.parse(readFileSync(path.join(repoRoot, "servers/contract/vectors.json"), "utf8"))
  .tools as Vector[];
const catalog = loadServerCatalog();
const silent = { info() {}, debug() {}, warn() {}, error() {} } as never;

/** I/O tool calls whose results every server must return identically after a fixture reset. */
const ioCalls: { tool: string; arguments: Record<string, unknown> }[] = [
  { tool: "fetch_upstream", arguments: { delay_ms: 5 } },
  { tool: "search_products", arguments: { query: "lamp", limit: 3 } },
  { tool: "get_user_cart", arguments: { user_id: 1000 } },
  {
    tool: "checkout",
    arguments: {
      user_id: 7,
      items: [
        { product_id: 42, quantity: 2 },
        { product_id: 99999, quantity: 1 },
      ],
    },
  },
  { tool: "checkout", arguments: { user_id: 8, items: [{ product_id: 1, quantity: 1 }] } },
  { tool: "get_user", arguments: { id: 42 } },
];

const textOf = (result: unknown) => {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
};

let fixtures: Fixtures;
let backends: Record<string, string>;
const toolLists = new Map<string, unknown>();
const ioResults = new Map<string, string[]>();

beforeAll(async () => {
  fixtures = new Fixtures({
    fixturesDir: path.join(repoRoot, "servers/fixtures"),
    labDatabaseUrl: inject("databaseUrl"),
    log: silent,
  });
  backends = await fixtures.ensure();
});

afterAll(async () => {
  await fixtures?.close();
});

it("finds every reference server's manifest", () => {
  expect(catalog.map((s) => s.name)).toContain("go");
  for (const server of catalog) expect(server.tools.length).toBeGreaterThan(0);
});

describe.each(catalog.map((s) => [s.name, s] as [string, CatalogEntry]))("server %s", (name, server) => {
  let running: RunningServer;
  let baseUrl: string;
  const clients: Client[] = [];

  async function connect(): Promise<Client> {
    const client = new Client({ name: "perflab-conformance", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${server.mcpPath}`)));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    await fixtures.reset();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    running = await localDriver.start({ server, cellId: `conformance-${name}`, port, env: backends });
    await waitForHealthy({
      baseUrl,
      mcpPath: server.mcpPath,
      timeoutMs: 60_000,
      exited: running.exited,
    }).catch((error) => {
      throw new Error(`${name} did not become healthy: ${error.message}\n${running.logTail()}`);
    });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    const exit = await running?.stop(5_000);
    // Graceful on SIGTERM: exit 0 (or killed by the signal itself on runtimes that re-raise it).
    expect(exit?.exitCode === 0 || exit?.signal === "SIGTERM").toBe(true);
  });

  it("lists the contract's tools with the same input schemas as every other server", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const normalized = tools
      .map((t) => ({ name: t.name, description: t.description, inputSchema: stripSdkExtras(t.inputSchema) }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(normalized.map((t) => t.name)).toEqual([...server.tools].sort());
    toolLists.set(name, normalized);
    const reference = toolLists.get("go") ?? normalized;
    expect(normalized).toEqual((reference as typeof normalized).filter((t) => server.tools.includes(t.name)));
  });

  it.each(vectors.map((v) => [v.name, v] as [string, Vector]))(
    "returns the golden result: %s",
    async (_, vector) => {
      if (!server.tools.includes(vector.tool)) return;
      const client = clients[0] ?? (await connect());
      const result = await client.callTool({ name: vector.tool, arguments: vector.arguments });
      expect(result.isError ?? false).toBe(false);
      const text = textOf(result);
      if (vector.text !== undefined) expect(text).toBe(vector.text);
      else {
        expect(Buffer.byteLength(text)).toBe(Number(vector.text_bytes));
        expect(createHash("sha256").update(text).digest("hex")).toBe(vector.text_sha256);
      }
    },
  );

  it("returns the same I/O tool results as every other server after a fixture reset", async () => {
    const client = clients[0] ?? (await connect());
    const texts: string[] = [];
    for (const call of ioCalls.filter((c) => server.tools.includes(c.tool))) {
      const result = await client.callTool({ name: call.tool, arguments: call.arguments });
      expect(result.isError ?? false, `${call.tool}: ${textOf(result)}`).toBe(false);
      texts.push(textOf(result));
    }
    ioResults.set(name, texts);
    const reference = ioResults.get("go");
    if (reference && server.tools.length === 10) expect(texts).toEqual(reference);
  });

  it("answers bad arguments with an error and stays up", async () => {
    const client = clients[0] ?? (await connect());
    for (const bad of [
      { name: "fibonacci", arguments: { n: 36 } },
      { name: "fibonacci", arguments: { n: "ten" } },
      { name: "echo", arguments: {} },
      { name: "no_such_tool", arguments: {} },
    ]) {
      const outcome = await client.callTool(bad).then(
        (r) => (r.isError ? "tool error" : `unexpected success: ${textOf(r)}`),
        () => "json-rpc error",
      );
      expect(["tool error", "json-rpc error"], `${bad.name} ${JSON.stringify(bad.arguments)}`).toContain(
        outcome,
      );
    }
    const health = await fetch(`${baseUrl}${server.healthPath}`);
    expect(health.status).toBe(200);
  });

  it("serves 100 concurrent sessions", async () => {
    const sessions = await Promise.all(Array.from({ length: 100 }, () => connect()));
    const results = await Promise.all(
      sessions.map((c, i) => c.callTool({ name: "echo", arguments: { message: `s${i}` } })),
    );
    expect(results.map(textOf)).toEqual(results.map((_, i) => `s${i}`));
    await Promise.all(sessions.map((c) => c.close()));
  });

  it("opens the GET stream and ends the session with DELETE", async () => {
    const init = await fetch(`${baseUrl}${server.mcpPath}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "conformance", version: "1" },
        },
      }),
    });
    expect(init.status).toBe(200);
    await init.text();
    const sessionId = init.headers.get("mcp-session-id");
    expect(sessionId).toBeTruthy();
    const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-06-18" };
    await fetch(`${baseUrl}${server.mcpPath}`, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    }).then((r) => r.text());
    const abort = new AbortController();
    const stream = await fetch(`${baseUrl}${server.mcpPath}`, {
      headers: { ...headers, accept: "text/event-stream" },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    abort.abort();
    const del = await fetch(`${baseUrl}${server.mcpPath}`, { method: "DELETE", headers });
    expect([200, 202, 204]).toContain(del.status);
    const after = await fetch(`${baseUrl}${server.mcpPath}`, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
  });

  it("reports runtime memory in the common /debug/runtime shape", async () => {
    const body = await (await fetch(`${baseUrl}/debug/runtime`)).json();
    expect(body).toMatchObject({
      runtime: { name: expect.any(String), version: expect.any(String) },
      pid: expect.any(Number),
      uptime_ms: expect.any(Number),
      parallelism: expect.any(Number),
      rss_bytes: expect.any(Number),
      threads: expect.any(Number),
      mcp: { stateless: false, json_response: false, sessions: expect.any(Number) },
    });
    expect("goroutines" in body).toBe(true);
    // Runtimes without a managed heap or GC counters (Rust, CPython, Bun) report null, not a made-up 0.
    for (const key of ["heap_used_bytes", "heap_total_bytes", "gc_count", "gc_pause_total_ms"]) {
      expect(body[key] === null || typeof body[key] === "number", key).toBe(true);
    }
    expect(body.rss_bytes).toBeGreaterThan(1_000_000);
  });
});

/** SDKs add `$schema`, `additionalProperties` and the like; the contract compares the rest. */
function stripSdkExtras(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripSdkExtras);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$schema" || k === "additionalProperties" || k === "title") continue;
    out[k] = stripSdkExtras(v);
  }
  return out;
}
