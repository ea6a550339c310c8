import { setTimeout as sleepMs } from "node:timers/promises";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { type Backends, backendUnavailable, ToolError } from "./backends.js";
import { fibonacci, MAX_ECHO_BYTES, padMessage, transformData } from "./compute.js";
import { selectUser, type UserRow } from "./users.js";
import type { DocumentValidator } from "./validate.js";

// Zod schemas written so the SDK's JSON Schema rendering equals the contract's input schemas.
const int = (min: number, max: number) => z.int().min(min).max(max);
const anyObject = z.record(z.string(), z.unknown());
// Zod renders a record with propertyNames and additionalProperties; the contract says only "object".
anyObject._zod.toJSONSchema = () => ({ type: "object" });

const lineItem = z.object({ product_id: int(1, 100000), quantity: int(1, 10) });

const schemas = {
  echo: z.object({ message: z.string(), pad_to_bytes: int(0, MAX_ECHO_BYTES).optional() }),
  fibonacci: z.object({ n: int(0, 35) }),
  validate_document: z.object({ document: anyObject }),
  transform_data: z.object({ size: int(1, 100000) }),
  sleep: z.object({ ms: int(0, 10000) }),
  fetch_upstream: z.object({ delay_ms: int(0, 10000) }),
  search_products: z.object({ query: z.string().regex(/^[a-z]{1,32}$/), limit: int(1, 50).default(10) }),
  get_user_cart: z.object({ user_id: int(1, 1000) }),
  checkout: z.object({ user_id: int(1, 1000), items: z.array(lineItem).min(1).max(10) }),
  get_user: z.object({ id: int(1, 100000) }),
};

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

/** Handlers re-check ranges: the contract must hold even if the SDK's validation is bypassed. */
function inRange(name: string, v: unknown, lo: number, hi: number): number {
  if (!Number.isInteger(v) || (v as number) < lo || (v as number) > hi) {
    throw new ToolError(`invalid_argument: ${name} must be an integer in ${lo}..${hi}`);
  }
  return v as number;
}

function parseUpstream(body: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(body);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {}
  throw new ToolError("upstream_error: fixture API answered malformed JSON");
}

/** PRODUCT with the contract's key order, whatever order the API used. */
function product(v: unknown) {
  const p = (v ?? {}) as Record<string, unknown>;
  return { id: p.id, name: p.name, category: p.category, price_cents: p.price_cents, stock: p.stock };
}

function decimal(s: string, what: string): number {
  const n = Number(s);
  if (s === "" || !Number.isFinite(n)) throw backendUnavailable(`malformed ${what} ${JSON.stringify(s)}`);
  return Math.trunc(n);
}

async function redisCall<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw backendUnavailable("redis", err);
  }
}

/** The users lookup shared by get_user and GET /rest/users/:id; null when no row exists. */
export async function lookupUser(backends: Backends, id: number): Promise<UserRow | null> {
  const pool = backends.pg();
  try {
    return await selectUser(pool, id);
  } catch (err) {
    throw backendUnavailable("postgres", err);
  }
}

export function registerTools(server: McpServer, backends: Backends, validateDocument: DocumentValidator) {
  server.registerTool(
    "echo",
    { description: "Returns the message, padded to pad_to_bytes bytes.", inputSchema: schemas.echo },
    ({ message, pad_to_bytes }) => {
      if (Buffer.byteLength(message, "utf8") > MAX_ECHO_BYTES) {
        throw new ToolError(`invalid_argument: message is longer than ${MAX_ECHO_BYTES} bytes`);
      }
      return text(padMessage(message, inRange("pad_to_bytes", pad_to_bytes ?? 0, 0, MAX_ECHO_BYTES)));
    },
  );

  server.registerTool(
    "fibonacci",
    { description: "Computes the n-th Fibonacci number by naive recursion.", inputSchema: schemas.fibonacci },
    ({ n }) => text(JSON.stringify({ n, value: fibonacci(inRange("n", n, 0, 35)) })),
  );

  server.registerTool(
    "validate_document",
    {
      description: "Validates a document against the perflab order schema.",
      inputSchema: schemas.validate_document,
    },
    ({ document }) => text(validateDocument(document)),
  );

  server.registerTool(
    "transform_data",
    {
      description: "Generates, sorts, groups and aggregates size records.",
      inputSchema: schemas.transform_data,
    },
    ({ size }) => text(transformData(inRange("size", size, 1, 100000))),
  );

  server.registerTool(
    "sleep",
    { description: "Waits ms milliseconds, like a database call.", inputSchema: schemas.sleep },
    async ({ ms }, extra) => {
      await sleepMs(inRange("ms", ms, 0, 10000), undefined, { signal: extra.signal });
      return text(JSON.stringify({ slept_ms: ms }));
    },
  );

  server.registerTool(
    "fetch_upstream",
    { description: "Fetches the fixture API's /delay endpoint.", inputSchema: schemas.fetch_upstream },
    async ({ delay_ms }) =>
      text(await backends.api("GET", `/delay?ms=${inRange("delay_ms", delay_ms, 0, 10000)}`)),
  );

  server.registerTool(
    "search_products",
    {
      description: "Searches products and returns the most popular ones.",
      inputSchema: schemas.search_products,
    },
    async ({ query, limit }) => {
      if (!/^[a-z]{1,32}$/.test(query))
        throw new ToolError("invalid_argument: query must match ^[a-z]{1,32}$");
      inRange("limit", limit, 1, 50);
      const redis = backends.redis();
      // Both calls start before either is awaited.
      const [found, top] = await Promise.all([
        backends.api("GET", `/products/search?q=${query}&limit=${limit}`).then(parseUpstream),
        redisCall(redis.zrevrange("products:popularity", 0, 4, "WITHSCORES")),
      ]);
      const popular = [];
      for (let i = 0; i + 1 < top.length; i += 2) {
        popular.push({
          product_id: decimal(top[i] as string, "popularity member"),
          score: decimal(top[i + 1] as string, "popularity score"),
        });
      }
      const items = Array.isArray(found.items) ? found.items.map(product) : [];
      return text(JSON.stringify({ query, total: found.total ?? 0, items, popular }));
    },
  );

  server.registerTool(
    "get_user_cart",
    {
      description: "Returns a user's cart, recommended product and recent orders.",
      inputSchema: schemas.get_user_cart,
    },
    async ({ user_id }) => {
      const uid = inRange("user_id", user_id, 1, 1000);
      const redis = backends.redis();
      const recommended = 1 + ((uid * 7919) % 100000);
      const [cart, found, history] = await Promise.all([
        redisCall(redis.hgetall(`user:${uid}:cart`)),
        backends.api("GET", `/products/${recommended}`).then(parseUpstream),
        redisCall(redis.lrange(`user:${uid}:history`, -5, -1)),
      ]);
      let itemCount = 0;
      const items = Object.entries(cart)
        .map(([field, value]) => {
          const quantity = decimal(value, "cart quantity");
          itemCount += quantity;
          return { product_id: decimal(field, "cart product id"), quantity };
        })
        .sort((a, b) => a.product_id - b.product_id);
      const recentOrders = history.map((entry) => {
        try {
          return JSON.parse(entry) as unknown;
        } catch {
          throw backendUnavailable("malformed history entry");
        }
      });
      return text(
        JSON.stringify({
          user_id: uid,
          items,
          item_count: itemCount,
          recommended: product(found),
          recent_orders: recentOrders,
        }),
      );
    },
  );

  server.registerTool(
    "checkout",
    { description: "Prices items and records an order for a user.", inputSchema: schemas.checkout },
    async ({ user_id, items }) => {
      const uid = inRange("user_id", user_id, 1, 1000);
      if (items.length < 1 || items.length > 10)
        throw new ToolError("invalid_argument: items must hold 1..10 entries");
      let itemCount = 0;
      const lines = items.map((it) => {
        const line = {
          product_id: inRange("product_id", it.product_id, 1, 100000),
          quantity: inRange("quantity", it.quantity, 1, 10),
        };
        itemCount += line.quantity;
        return line;
      });
      const order = JSON.stringify({ items: lines });
      const history = `user:${uid}:history`;
      const pipeline = backends
        .redis()
        .pipeline()
        .incr("orders:count")
        .rpush(history, order)
        .ltrim(history, -50, -1);
      for (const line of lines)
        pipeline.zincrby("products:popularity", line.quantity, String(line.product_id));
      const [priced, results] = await Promise.all([
        backends.api("POST", "/cart/calculate", order).then(parseUpstream),
        redisCall(pipeline.exec()),
      ]);
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw backendUnavailable("redis", failed?.[0]);
      return text(
        JSON.stringify({
          order_number: results[0]?.[1],
          user_id: uid,
          item_count: itemCount,
          subtotal_cents: priced.subtotal_cents,
          tax_cents: priced.tax_cents,
          total_cents: priced.total_cents,
        }),
      );
    },
  );

  server.registerTool(
    "get_user",
    { description: "Looks up a user by primary key in Postgres.", inputSchema: schemas.get_user },
    async ({ id }) => {
      const user = await lookupUser(backends, inRange("id", id, 1, 100000));
      if (!user) throw new ToolError(`not_found: user ${id}`);
      return text(JSON.stringify(user));
    },
  );
}
