// Drives the real HTTP server with the SDK's own client and checks servers/contract/vectors.json.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, startApp } from "../src/app.js";

interface ToolVector {
  name: string;
  tool: string;
  arguments: Record<string, unknown>;
  text?: string;
  text_bytes?: number;
  text_sha256?: string;
}

const contractDir = new URL("../../contract/", import.meta.url);
const vectors = (
  JSON.parse(readFileSync(new URL("vectors.json", contractDir), "utf8")) as { tools: ToolVector[] }
).tools;

/** Tool descriptions and input schemas as CONTRACT.md section 4 states them. */
function contractTools(): Map<string, { description: string; inputSchema: unknown }> {
  const md = readFileSync(new URL("../CONTRACT.md", contractDir), "utf8");
  const tools = new Map<string, { description: string; inputSchema: unknown }>();
  for (const [, name, schema] of md.matchAll(/^### 4\.\d+ `(\w+)`[^\n]*\n+```json\n(.*?)\n```/gms)) {
    const description = new RegExp(`^\\|\\s*\`${name}\`\\s*\\|\\s*\`([^\`]+)\`\\s*\\|`, "m").exec(md)?.[1];
    tools.set(name as string, {
      description: description as string,
      inputSchema: JSON.parse(schema as string),
    });
  }
  return tools;
}

/** Drops what the contract says may differ: $schema and additionalProperties added by an SDK. */
function normalise(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalise);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== "$schema" && k !== "additionalProperties")
      .map(([k, v]) => [k, normalise(v)]),
  );
}

async function connect(app: App) {
  const client = new Client({ name: "contract-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${app.port}/mcp`));
  await client.connect(transport);
  return { client, transport };
}

const textOf = (r: CallToolResult) => {
  expect(r.content).toHaveLength(1);
  expect(r.content[0]?.type).toBe("text");
  return (r.content[0] as { text: string }).text;
};

describe("stateful server (SSE responses)", () => {
  let app: App;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    app = await startApp({ port: 0, stateless: false, jsonResponse: false, parallelism: 1 });
    ({ client, transport } = await connect(app));
  });
  afterAll(() => app.close());

  it("answers initialize with perflab-node and the tools capability", () => {
    expect(client.getServerVersion()).toEqual({ name: "perflab-node", version: "1.0.0" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("lists exactly the contract's tools, descriptions and input schemas", async () => {
    const want = contractTools();
    expect(want.size).toBe(10);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...want.keys()].sort());
    for (const tool of tools) {
      expect(tool.description).toBe(want.get(tool.name)?.description);
      expect(normalise(tool.inputSchema)).toEqual(want.get(tool.name)?.inputSchema);
    }
  });

  it.each(vectors.map((v) => [v.name, v] as const))("%s matches its golden text", async (_, v) => {
    const result = (await client.callTool({ name: v.tool, arguments: v.arguments })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toBeUndefined();
    const text = textOf(result);
    if (v.text !== undefined) {
      expect(text).toBe(v.text);
    } else {
      expect(Buffer.byteLength(text)).toBe(v.text_bytes);
      expect(createHash("sha256").update(text).digest("hex")).toBe(v.text_sha256);
    }
  });

  it.each([
    ["fibonacci", { n: 40 }],
    ["fibonacci", { n: "7" }],
    ["transform_data", { size: 10_000_000 }],
    ["echo", { message: "x".repeat(1048577) }],
    ["validate_document", { document: [1, 2] }],
    ["search_products", { query: "Not-Lowercase" }],
    ["checkout", { user_id: 1, items: [] }],
    ["no_such_tool", {}],
  ])("rejects %s %j as a tool error and stays up", async (name, args) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result).length).toBeGreaterThan(0);
    const after = (await client.callTool({ name: "fibonacci", arguments: { n: 10 } })) as CallToolResult;
    expect(textOf(after)).toBe('{"n":10,"value":55}');
  });

  it("reports backend_unavailable for I/O tools when no backend is configured", async () => {
    for (const [name, args] of [
      ["fetch_upstream", { delay_ms: 1 }],
      ["get_user_cart", { user_id: 1 }],
      ["get_user", { id: 1 }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^backend_unavailable: /);
    }
  });

  it("counts the session in /debug/runtime and forgets it after DELETE", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a JSON body checked field by field below
    const runtime = async (): Promise<any> =>
      (await fetch(`http://127.0.0.1:${app.port}/debug/runtime`)).json();
    const before = await runtime();
    expect(Object.keys(before)).toEqual([
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
    expect(before.runtime.name).toBe("node");
    expect(before.mcp).toEqual({ stateless: false, json_response: false, sessions: 1 });
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    expect((await runtime()).mcp.sessions).toBe(0);
    const res = await fetch(`http://127.0.0.1:${app.port}/mcp`, {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId },
    });
    expect(res.status).toBe(404);
  });
});

describe("stateless server (JSON responses)", () => {
  let app: App;

  beforeAll(async () => {
    app = await startApp({ port: 0, stateless: true, jsonResponse: true, parallelism: 1 });
  });
  afterAll(() => app.close());

  it("answers tools/call without initialize, as application/json", async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "hello", pad_to_bytes: 70 } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as { result: CallToolResult };
    expect(textOf(body.result)).toBe(vectors.find((v) => v.name === 'echo "hello" padded to 70')?.text);
  });

  it("serves the SDK client and answers GET and DELETE with 405", async () => {
    const { client, transport } = await connect(app);
    const result = (await client.callTool({ name: "fibonacci", arguments: { n: 25 } })) as CallToolResult;
    expect(textOf(result)).toBe('{"n":25,"value":75025}');
    expect(transport.sessionId).toBeUndefined();
    await client.close();
    for (const method of ["GET", "DELETE"]) {
      expect((await fetch(`http://127.0.0.1:${app.port}/mcp`, { method })).status).toBe(405);
    }
  });

  it("serves the plain routes", async () => {
    const base = `http://127.0.0.1:${app.port}`;
    expect(await (await fetch(`${base}/health`)).text()).toBe('{"status":"ok"}');
    expect(await (await fetch(`${base}/rest/time`)).text()).toMatch(/^\{"now_ms":\d{13}\}$/);
    const bad = await fetch(`${base}/rest/users/01`);
    expect([bad.status, await bad.text()]).toEqual([400, '{"error":"invalid id"}']);
    const noDb = await fetch(`${base}/rest/users/1`);
    expect([noDb.status, await noDb.text()]).toEqual([503, '{"error":"database unavailable"}']);
  });
});
