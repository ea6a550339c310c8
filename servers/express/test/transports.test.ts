// The per-request (stateless) Streamable HTTP mode, the legacy HTTP+SSE transport and the plain routes.
import http from "node:http";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../src/app.js";
import { connect, runtime, start, textOf, vectors } from "./helpers.js";

const echo70 = vectors.find((v) => v.name === 'echo "hello" padded to 70');
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const call = (id: number, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: args } });

/** A raw POST, so the Host header and a body past the limit can be sent as they are. */
function rawPost(port: number, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; reset?: boolean }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...mcpHeaders, ...headers } },
      (res) => {
        res.resume().on("end", () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) =>
      err.code === "ECONNRESET" || err.code === "EPIPE" ? resolve({ status: 0, reset: true }) : reject(err),
    );
    req.end(body);
  });
}

describe("per-request server (stateless, JSON responses)", () => {
  let app: App;
  let base: string;

  beforeAll(async () => {
    app = await start({ stateless: true, jsonResponse: true });
    base = `http://127.0.0.1:${app.port}`;
  });
  afterAll(() => app.close());

  it("answers tools/call without initialize, as application/json", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: mcpHeaders,
      body: call(1, { message: "hello", pad_to_bytes: 70 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as { result: CallToolResult };
    expect(textOf(body.result)).toBe(echo70?.text);
  });

  it("serves the SDK client and answers GET and DELETE with 405", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
    const client = await connect(transport);
    const result = (await client.callTool({ name: "fibonacci", arguments: { n: 25 } })) as CallToolResult;
    expect(textOf(result)).toBe('{"n":25,"value":75025}');
    expect(transport.sessionId).toBeUndefined();
    await client.close();
    for (const method of ["GET", "DELETE"]) expect((await fetch(`${base}/mcp`, { method })).status).toBe(405);
    expect((await runtime(app)).mcp).toEqual({ stateless: true, json_response: true, sessions: null });
  });

  it("accepts a body of 8 MiB and answers 413 above; refuses a foreign Host", async () => {
    const limit = 8 * 1024 * 1024;
    const atLimit = await rawPost(app.port, call(1, { message: "hi" }).padEnd(limit, " "), {});
    expect(atLimit.status).toBe(200);
    const above = await rawPost(app.port, call(2, { message: "hi" }).padEnd(limit + 1, " "), {});
    expect(above.reset ? "reset" : above.status).toSatisfy((s: unknown) => s === 413 || s === "reset");
    expect(
      (await rawPost(app.port, call(3, { message: "hi" }), { host: `localhost:${app.port}` })).status,
    ).toBe(200);
    expect((await rawPost(app.port, call(4, { message: "hi" }), { host: "rebound.example" })).status).toBe(
      403,
    );
  });

  it("serves the plain routes", async () => {
    expect(await (await fetch(`${base}/health`)).text()).toBe('{"status":"ok"}');
    expect(await (await fetch(`${base}/rest/time`)).text()).toMatch(/^\{"now_ms":\d{13}\}$/);
    for (const id of ["01", "%2B1", "1e3", "1234567890"]) {
      const bad = await fetch(`${base}/rest/users/${id}`);
      expect([bad.status, await bad.text()]).toEqual([400, '{"error":"invalid id"}']);
    }
    const noDb = await fetch(`${base}/rest/users/1`);
    expect(noDb.headers.get("content-type")).toMatch(/^application\/json/);
    expect([noDb.status, await noDb.text()]).toEqual([503, '{"error":"database unavailable"}']);
  });
});

describe("legacy HTTP+SSE transport (MCP_LEGACY_SSE=1)", () => {
  let app: App;
  let base: string;

  beforeAll(async () => {
    app = await start({ legacySse: true });
    base = `http://127.0.0.1:${app.port}`;
  });
  afterAll(() => app.close());

  it("serves the SDK's SSE client at GET /sse, one session per stream", async () => {
    const client = await connect(new SSEClientTransport(new URL(`${base}/sse`)));
    expect(client.getServerVersion()).toEqual({ name: "perflab-express", version: "1.0.0" });
    expect((await client.listTools()).tools).toHaveLength(10);
    const result = (await client.callTool({
      name: echo70!.tool,
      arguments: echo70!.arguments,
    })) as CallToolResult;
    expect(textOf(result)).toBe(echo70?.text);
    expect((await runtime(app)).mcp.sessions).toBe(1);
    await client.close();
    await expect.poll(async () => (await runtime(app)).mcp.sessions).toBe(0);
  });

  it("still serves Streamable HTTP at /mcp, and answers an unknown SSE session with 404", async () => {
    const client = await connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const result = (await client.callTool({ name: "fibonacci", arguments: { n: 10 } })) as CallToolResult;
    expect(textOf(result)).toBe('{"n":10,"value":55}');
    await client.close();
    const res = await fetch(`${base}/messages?sessionId=nope`, {
      method: "POST",
      headers: mcpHeaders,
      body: "{}",
    });
    expect(res.status).toBe(404);
  });
});
