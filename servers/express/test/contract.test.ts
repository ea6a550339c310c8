// Drives the real Express server with the SDK's own client: servers/contract/vectors.json byte for
// byte, and the same tools/list as servers/node, whose suite checks it against CONTRACT.md.
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startApp as startNodeApp } from "@perflab/server-node/dist/app.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../src/app.js";
import { connect, runtime, start, textOf, vectors } from "./helpers.js";

const mcpUrl = (port: number) => new URL(`http://127.0.0.1:${port}/mcp`);

describe("stateful server (SSE responses)", () => {
  let app: App;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    app = await start();
    transport = new StreamableHTTPClientTransport(mcpUrl(app.port));
    client = await connect(transport);
  });
  afterAll(() => app.close());

  it("answers initialize with perflab-express and the tools capability", () => {
    expect(client.getServerVersion()).toEqual({ name: "perflab-express", version: "1.0.0" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("lists the same ten tools, descriptions and input schemas as servers/node", async () => {
    const node = await startNodeApp({ port: 0, stateless: true, jsonResponse: false, parallelism: 1 });
    try {
      const nodeClient = await connect(new StreamableHTTPClientTransport(mcpUrl(node.port)));
      const want = (await nodeClient.listTools()).tools;
      await nodeClient.close();
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(10);
      expect(tools).toEqual(want);
    } finally {
      await node.close();
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
    ["transform_data", { size: 10_000_000 }],
    ["echo", { message: "x".repeat(1048577) }],
    ["checkout", { user_id: 1, items: [] }],
    ["no_such_tool", {}],
  ])("rejects %s %j as a tool error and stays up", async (name, args) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    const after = (await client.callTool({ name: "fibonacci", arguments: { n: 10 } })) as CallToolResult;
    expect(textOf(after)).toBe('{"n":10,"value":55}');
  });

  it("reports backend_unavailable for I/O tools when no backend is configured", async () => {
    const result = (await client.callTool({ name: "get_user", arguments: { id: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^backend_unavailable: /);
  });

  it("counts the session in /debug/runtime and forgets it after DELETE", async () => {
    const before = await runtime(app);
    expect(before.runtime.name).toBe("node");
    expect(before.parallelism).toBe(1);
    expect(before.mcp).toEqual({ stateless: false, json_response: false, sessions: 1 });
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    expect((await runtime(app)).mcp.sessions).toBe(0);
    const res = await fetch(mcpUrl(app.port), { method: "DELETE", headers: { "mcp-session-id": sessionId } });
    expect(res.status).toBe(404);
  });
});
