import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { hostHeaderValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Backends, ToolError } from "@perflab/server-node/dist/backends.js";
import { MAX_BODY_BYTES, rpcError } from "@perflab/server-node/dist/mcp.js";
import { runtimeInfo } from "@perflab/server-node/dist/runtime-info.js";
import { lookupUser, registerTools } from "@perflab/server-node/dist/tools.js";
import { compileDocumentValidator } from "@perflab/server-node/dist/validate.js";
import express, { type ErrorRequestHandler, type Express } from "express";
import { LegacySseEndpoint, MESSAGES_PATH, SSE_PATH } from "./legacy-sse.js";
import { StreamableEndpoint } from "./streamable.js";

export interface AppConfig {
  port: number;
  stateless: boolean;
  jsonResponse: boolean;
  /** Also serve the deprecated HTTP+SSE transport at GET /sse + POST /messages. */
  legacySse: boolean;
  /** Processes serving requests (cluster workers), reported as parallelism. */
  parallelism: number;
}

export interface App {
  port: number;
  /** Open MCP sessions: Streamable HTTP and legacy SSE. */
  sessions(): number;
  /** Graceful shutdown: stop accepting, end event streams, let POSTs finish (4.5 s at most). */
  close(): Promise<void>;
}

/** Body-parser's errors as JSON-RPC errors: 413 above the contract's 8 MiB, 400 for bad JSON. */
const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) return next(err);
  if (err?.type === "entity.too.large") {
    rpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`, {
      Connection: "close",
    });
    res.on("finish", () => req.destroy());
    return;
  }
  if (err?.type === "entity.parse.failed") return rpcError(res, 400, -32700, "Parse error: Invalid JSON");
  if (typeof err?.status === "number" && err.status >= 400 && err.status < 500) {
    return rpcError(res, err.status, -32000, String(err.message));
  }
  console.error("request failed:", err);
  res.status(500).json({ error: "internal error" });
};

function plainRoutes(app: Express, backends: Backends, runtime: () => string): void {
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/rest/time", (_req, res) => {
    res.json({ now_ms: Date.now() });
  });
  app.get("/rest/users/:id", async (req, res) => {
    const id = req.params.id;
    if (!/^[1-9][0-9]{0,8}$/.test(id)) return void res.status(400).json({ error: "invalid id" });
    try {
      const user = await lookupUser(backends, Number(id));
      if (!user) return void res.status(404).json({ error: "not found" });
      res.json(user);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      res.status(503).json({ error: "database unavailable" });
    }
  });
  app.get("/debug/runtime", (_req, res) => {
    res.type("json").send(runtime());
  });
}

export async function startApp(config: AppConfig): Promise<App> {
  const backends = new Backends();
  const validateDocument = compileDocumentValidator();
  // Each McpServer otherwise builds its own Ajv instance (~1 ms and hundreds of KB per session
  // or stateless request) for elicitation schemas, which this server never sends.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const createServer = () => {
    const server = new McpServer({ name: "perflab-express", version: "1.0.0" }, { jsonSchemaValidator });
    registerTools(server, backends, validateDocument);
    return server;
  };
  const streamable = new StreamableEndpoint({ ...config, createServer });
  const sse = config.legacySse ? new LegacySseEndpoint(createServer) : undefined;
  const sessions = () => streamable.sessions.size + (sse?.sessions.size ?? 0);

  // What the SDK's createMcpExpressApp() sets up (its DNS-rebinding guard, then express.json()),
  // with the contract's 8 MiB body limit instead of body-parser's 100 KB default.
  const app = express();
  app.use(["/mcp", SSE_PATH, MESSAGES_PATH], hostHeaderValidation(["127.0.0.1", "localhost"]));
  app.use(express.json({ limit: MAX_BODY_BYTES }));
  streamable.mount(app, "/mcp");
  sse?.mount(app);
  plainRoutes(app, backends, () => runtimeInfo({ ...config, sessions: sessions() }));
  app.use((_req, res) => {
    res.status(404).json({ error: "not found" });
  });
  app.use(bodyErrors);

  const server = await listen(app, config.port);
  const sockets = openConnections(server);
  return {
    port: (server.address() as AddressInfo).port,
    sessions,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      streamable.closeEventStreams();
      await sse?.closeSessions();
      // Connections become idle as their in-flight responses finish; close them as they do.
      const sweep = setInterval(() => {
        server.closeIdleConnections();
        // Node counts a connection that has not sent a byte as busy, and waits for it: an SSE
        // client's HTTP pool opens such connections and holds them 4 s.
        for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
      }, 50);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, 4_500).unref());
      await Promise.race([closed, deadline]);
      clearInterval(sweep);
      server.closeAllConnections();
      await streamable.closeSessions();
      await Promise.race([backends.close(), new Promise((r) => setTimeout(r, 300).unref())]);
    },
  };
}

/** Every open connection, tracked once per connection (nothing per request). */
function openConnections(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return sockets;
}

function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, "127.0.0.1", (err?: Error) => (err ? reject(err) : resolve(server)));
    // Node's 5 s default would make a client that pauses between calls reconnect.
    server.keepAliveTimeout = 120_000;
  });
}
