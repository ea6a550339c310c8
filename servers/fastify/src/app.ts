import { runtimeFigures } from "@perflab/server-node/dist/runtime-info.js";
import { createUserPool, selectUser } from "@perflab/server-node/dist/users.js";
import Fastify, { type FastifyInstance } from "fastify";
import type pg from "pg";

export interface App {
  port: number;
  /** Graceful shutdown: stop accepting, let in-flight requests finish (4.5 s at most), end the pool. */
  close(): Promise<void>;
}

const ID = /^[1-9][0-9]{0,8}$/;

/** The routes of CONTRACT.md section 7, answered with Fastify's default JSON serializer. */
function routes(app: FastifyInstance, pool: pg.Pool | undefined): void {
  app.get("/health", async () => ({ status: "ok" }));
  app.get("/rest/time", async () => ({ now_ms: Date.now() }));
  app.get<{ Params: { id: string } }>("/rest/users/:id", async (request, reply) => {
    const { id } = request.params;
    if (!ID.test(id)) return reply.code(400).send({ error: "invalid id" });
    if (!pool) return reply.code(503).send({ error: "database unavailable" });
    let user: Awaited<ReturnType<typeof selectUser>>;
    try {
      user = await selectUser(pool, Number(id));
    } catch {
      return reply.code(503).send({ error: "database unavailable" });
    }
    return user ?? reply.code(404).send({ error: "not found" });
  });
  // A REST-only server has no MCP transport: `mcp` is null, never a made-up mode.
  app.get("/debug/runtime", async () => ({ ...runtimeFigures(1), mcp: null }));
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: "not found" }));
}

/** Backend errors repeat on every reconnect attempt; one line per 10 s is enough. */
function logRarely(): (message: string) => void {
  let last = 0;
  return (message) => {
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    console.error(message);
  };
}

export async function startApp(port: number): Promise<App> {
  // Created at start, but pg.Pool opens connections only when a query needs one (section 1: lazily).
  const url = process.env.DATABASE_URL;
  const pool = url ? createUserPool(url) : undefined;
  const log = logRarely();
  pool?.on("error", (err) => log(`postgres: ${err.message}`));

  // Fastify's defaults as its users deploy it: no logger, keep-alive 72 s, no response schemas.
  const app = Fastify();
  routes(app, pool);
  app.addHook("onClose", async () => {
    await Promise.race([pool?.end(), new Promise((resolve) => setTimeout(resolve, 300).unref())]);
  });
  await app.listen({ port, host: "127.0.0.1" });
  const address = app.server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    async close() {
      // Fastify closes idle connections and answers requests that arrive meanwhile with 503;
      // connections still busy after 4.5 s are cut so the process exits within the contract's 5 s.
      const force = setTimeout(() => app.server.closeAllConnections(), 4_500).unref();
      await app.close();
      clearTimeout(force);
    },
  };
}
