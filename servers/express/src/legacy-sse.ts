import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { rpcError } from "@perflab/server-node/dist/mcp.js";
import type { Express } from "express";

/** Where a legacy SSE client opens its stream, and where it posts (the SDK's names). */
export const SSE_PATH = "/sse";
export const MESSAGES_PATH = "/messages";

/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05), as study 000 ran the SDK on Express:
 * GET /sse opens a session's stream and names its POST endpoint in an `endpoint` event; the
 * session lives as long as that stream. One McpServer per stream, as for Streamable HTTP.
 */
export class LegacySseEndpoint {
  readonly sessions = new Map<string, SSEServerTransport>();

  constructor(private readonly createServer: () => McpServer) {}

  mount(app: Express): void {
    app.get(SSE_PATH, async (_req, res) => {
      const transport = new SSEServerTransport(MESSAGES_PATH, res);
      const server = this.createServer();
      this.sessions.set(transport.sessionId, transport);
      res.on("close", () => {
        this.sessions.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
    });
    app.post(MESSAGES_PATH, async (req, res) => {
      const sessionId = req.query.sessionId;
      const transport = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
      if (!transport) return rpcError(res, 404, -32001, "Session not found");
      await transport.handlePostMessage(req, res, req.body);
    });
  }

  /** Ends every stream, which ends its session (shutdown: streams never finish on their own). */
  async closeSessions(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((t) => t.close()));
  }
}
