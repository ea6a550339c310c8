import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** The contract's limit: a 1 MiB echo message of control characters is 6 MiB JSON-escaped; 413 above. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface McpOptions {
  stateless: boolean;
  jsonResponse: boolean;
  /** Host header values served (the SDK's DNS-rebinding guard). */
  allowedHosts: () => string[];
  createServer: () => McpServer;
}

/**
 * Streamable HTTP at /mcp the way the SDK's examples do it: stateful mode keeps one McpServer
 * and transport per session in a map keyed by Mcp-Session-Id; stateless mode answers every POST
 * with a fresh pair (the SDK refuses to reuse a stateless transport).
 */
export class McpEndpoint {
  readonly sessions = new Map<string, StreamableHTTPServerTransport>();

  constructor(private readonly opts: McpOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The DNS-rebinding guard comes first: a foreign Host learns nothing, not even that it lacks a session.
    const host = req.headers.host;
    if (!host || !this.opts.allowedHosts().includes(host)) {
      return rpcError(res, 403, -32000, `Invalid Host header: ${host ?? "(none)"}`);
    }
    if (this.opts.stateless) {
      if (req.method !== "POST") return rpcError(res, 405, -32000, "Method not allowed.", { Allow: "POST" });
      const body = await readJsonBody(req, res);
      if (body === undefined) return;
      const transport = this.#transport(undefined);
      const server = this.opts.createServer();
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = this.sessions.get(sessionId);
      if (!transport) return rpcError(res, 404, -32001, "Session not found");
      if (req.method !== "POST") return transport.handleRequest(req, res);
      const body = await readJsonBody(req, res);
      if (body !== undefined) await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST")
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const body = await readJsonBody(req, res);
    if (body === undefined) return;
    if (!isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const transport = this.#transport(() => randomUUID());
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await this.opts.createServer().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** Ends the GET event streams at once (they never finish on their own); POSTs may finish. */
  closeEventStreams(): void {
    for (const transport of this.sessions.values()) transport.closeStandaloneSSEStream();
  }

  async closeSessions(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((t) => t.close()));
  }

  #transport(sessionIdGenerator: (() => string) | undefined): StreamableHTTPServerTransport {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator,
      enableJsonResponse: this.opts.jsonResponse,
      enableDnsRebindingProtection: true,
      allowedHosts: this.opts.allowedHosts(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        this.sessions.set(id, transport);
      },
    });
    return transport;
  }
}

/** Reads and parses the JSON body, answering 413 or 400 itself; undefined means answered. */
async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return tooLarge(req, res);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return tooLarge(req, res);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString("utf8"));
  } catch {
    rpcError(res, 400, -32700, "Parse error: Invalid JSON");
    return undefined;
  }
}

function tooLarge(req: IncomingMessage, res: ServerResponse): undefined {
  rpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`, {
    Connection: "close",
  });
  res.on("finish", () => req.destroy());
  return undefined;
}

export function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}
