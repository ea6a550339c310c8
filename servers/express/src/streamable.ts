import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { rpcError } from "@perflab/server-node/dist/mcp.js";
import type { Express, Request, Response } from "express";

export interface StreamableOptions {
  stateless: boolean;
  jsonResponse: boolean;
  createServer: () => McpServer;
}

const notAllowed = (_req: Request, res: Response) =>
  rpcError(res, 405, -32000, "Method not allowed.", { Allow: "POST" });

/**
 * Streamable HTTP at /mcp as the SDK's Express examples route it: stateful mode keeps one
 * McpServer and transport per session in a map keyed by Mcp-Session-Id; stateless mode builds a
 * new pair for every POST (the advisory's mitigation: no server is shared between requests).
 */
export class StreamableEndpoint {
  readonly sessions = new Map<string, StreamableHTTPServerTransport>();

  constructor(private readonly opts: StreamableOptions) {}

  mount(app: Express, path: string): void {
    if (this.opts.stateless) {
      app.post(path, (req, res) => this.#statelessPost(req, res));
      app.all(path, notAllowed);
      return;
    }
    app.post(path, (req, res) => this.#statefulPost(req, res));
    app.get(path, (req, res) => this.#sessionRequest(req, res));
    app.delete(path, (req, res) => this.#sessionRequest(req, res));
    app.all(path, notAllowed);
  }

  /** Ends the GET event streams at once (they never finish on their own); POSTs may finish. */
  closeEventStreams(): void {
    for (const transport of this.sessions.values()) transport.closeStandaloneSSEStream();
  }

  async closeSessions(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((t) => t.close()));
  }

  async #statelessPost(req: Request, res: Response): Promise<void> {
    const transport = this.#transport(undefined);
    const server = this.opts.createServer();
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  async #statefulPost(req: Request, res: Response): Promise<void> {
    if (req.get("mcp-session-id") !== undefined) return this.#sessionRequest(req, res);
    if (!isInitializeRequest(req.body)) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const transport = this.#transport(() => randomUUID());
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await this.opts.createServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** A request naming its session: the session's transport answers, or 404 for an unknown one. */
  async #sessionRequest(req: Request, res: Response): Promise<void> {
    const sessionId = req.get("mcp-session-id");
    if (sessionId === undefined) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const transport = this.sessions.get(sessionId);
    if (!transport) return rpcError(res, 404, -32001, "Session not found");
    await transport.handleRequest(req, res, req.body);
  }

  #transport(sessionIdGenerator: (() => string) | undefined): StreamableHTTPServerTransport {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator,
      enableJsonResponse: this.opts.jsonResponse,
      onsessioninitialized: (id) => {
        this.sessions.set(id, transport);
      },
    });
    return transport;
  }
}
