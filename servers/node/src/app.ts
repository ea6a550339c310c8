import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Backends, ToolError } from "./backends.js";
import { McpEndpoint } from "./mcp.js";
import { runtimeInfo } from "./runtime-info.js";
import { lookupUser, registerTools } from "./tools.js";
import { compileDocumentValidator } from "./validate.js";

export const RUNTIME_NAME = "bun" in process.versions ? "bun" : "node";

export interface AppConfig {
  port: number;
  stateless: boolean;
  jsonResponse: boolean;
  /** Processes serving requests (cluster workers), reported as parallelism. */
  parallelism: number;
}

export interface App {
  port: number;
  endpoint: McpEndpoint;
  /** Graceful shutdown: stop accepting, end GET streams, let POSTs finish (4.5 s at most). */
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export async function startApp(config: AppConfig): Promise<App> {
  const backends = new Backends();
  const validateDocument = compileDocumentValidator();
  let port = config.port;
  // Each McpServer otherwise builds its own Ajv instance (~1 ms and hundreds of KB per session
  // or stateless request) for elicitation schemas, which this server never sends.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  const endpoint = new McpEndpoint({
    stateless: config.stateless,
    jsonResponse: config.jsonResponse,
    allowedHosts: () => [`127.0.0.1:${port}`, `localhost:${port}`],
    createServer: () => {
      const server = new McpServer(
        { name: `perflab-${RUNTIME_NAME}`, version: "1.0.0" },
        { jsonSchemaValidator },
      );
      registerTools(server, backends, validateDocument);
      return server;
    },
  });

  async function restUser(res: ServerResponse, raw: string): Promise<void> {
    if (!/^[1-9][0-9]{0,8}$/.test(raw)) return sendJson(res, 400, '{"error":"invalid id"}');
    try {
      const user = await lookupUser(backends, Number(raw));
      if (!user) return sendJson(res, 404, '{"error":"not found"}');
      sendJson(res, 200, JSON.stringify(user));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      sendJson(res, 503, '{"error":"database unavailable"}');
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (path === "/mcp") return endpoint.handle(req, res);
    if (req.method !== "GET") return sendJson(res, 404, '{"error":"not found"}');
    if (path === "/health") return sendJson(res, 200, '{"status":"ok"}');
    if (path === "/rest/time") return sendJson(res, 200, `{"now_ms":${Date.now()}}`);
    if (path.startsWith("/rest/users/")) return restUser(res, path.slice("/rest/users/".length));
    if (path === "/debug/runtime") {
      const state = { ...config, sessions: endpoint.sessions.size };
      return sendJson(res, 200, runtimeInfo(state));
    }
    sendJson(res, 404, '{"error":"not found"}');
  }

  const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
    route(req, res).catch((err: unknown) => {
      console.error("request failed:", err);
      if (!res.headersSent) sendJson(res, 500, '{"error":"internal error"}');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    endpoint,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      endpoint.closeEventStreams();
      // Connections become idle as their in-flight responses finish; close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, 4_500).unref());
      await Promise.race([closed, deadline]);
      clearInterval(sweep);
      server.closeAllConnections();
      await endpoint.closeSessions();
      await Promise.race([backends.close(), new Promise((r) => setTimeout(r, 300).unref())]);
    },
  };
}
