/**
 * Conformance of every reference server to servers/CONTRACT.md, through the official MCP
 * TypeScript SDK client over Streamable HTTP: the contract's tools and schemas, the golden vectors,
 * every tool and plain route, clean errors for bad arguments, 100 concurrent sessions counted in
 * /debug/runtime and ended with DELETE, GET stream and DELETE, the common /debug/runtime shape, a
 * request naming another host refused (DNS rebinding, a foreign Origin or not), a graceful SIGTERM,
 * a second pass in stateless mode (MCP_STATELESS=1, without backends), JSON responses
 * (MCP_JSON_RESPONSE=1) stateless and stateful, and the multi-process variants' I/O tools
 * with backends, each process answering its share. The I/O tools' results are derived from the fixture generators of
 * CONTRACT.md section 5, themselves checked against vectors.json's `fixtures` samples. The Go server
 * is the reference: it runs first, and every other server's tool list and non-golden results (I/O
 * tools, sleep, echo payloads, /rest/users) must equal its own.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { type CatalogEntry, loadServerCatalog, withVariants } from "@perflab/catalog";
import { Fixtures, localDriver, type RunningServer, waitForHealthy } from "@perflab/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";
import { collectUnderLoad, expectPausesShape, expectPausesUnderLoad, pausesRule } from "./runtime-gc.ts";

type Vector = {
  name: string;
  tool: string;
  arguments: Record<string, unknown>;
  text?: string;
  text_bytes?: number;
  text_sha256?: string;
};
type Call = { name: string; arguments: Record<string, unknown> };

const vectorFile = JSON.parse(readFileSync(path.join(repoRoot, "servers/contract/vectors.json"), "utf8"));
const vectors = vectorFile.tools as Vector[];
// Every server the worker can start as a process. One registered only as a prebuilt image (no
// start.command) runs under the docker driver alone; server-images.test.ts checks it over MCP there.
const catalog = loadServerCatalog().filter((s) => s.start.command.length > 0);
/** Servers whose manifest's protocols include MCP; a REST-only one (`["http"]`) gets the plain-route checks alone. */
const servesMcp = (s: CatalogEntry) => s.protocols.includes("mcp");
const restOnly = catalog.filter((s) => !servesMcp(s));
const silent = { info() {}, debug() {}, warn() {}, error() {} } as never;

/** The first implementation; every other server is compared with it, so it runs first. */
const REFERENCE = "go";
/** The reference servers' folders: each must exist and list all ten tools of section 4. */
const REFERENCE_SERVERS = ["go", "node", "bun", "python", "rust", "java"];
const ordered = [
  ...catalog.filter((s) => s.name === REFERENCE),
  ...catalog.filter((s) => s.name !== REFERENCE && servesMcp(s)),
];

const MIB = 1_048_576;
/** 16 UTF-8 bytes that JSON must escape (quote, backslash, control characters) plus non-ASCII. */
const PAYLOAD_UNIT = 'pay"load\\<>&\n\té';
/** A message of exactly `bytes` UTF-8 bytes (a multiple of 16). */
const payload = (bytes: number) => PAYLOAD_UNIT.repeat(bytes / Buffer.byteLength(PAYLOAD_UNIT));
/** The "in" side of the payload sweep (section 4.1's sizes); the last is the largest message allowed. */
const sweepSizes = [1024, 10240, 102400, MIB];
const bigMessage = payload(MIB);

/** Section 4: the ten tools, their descriptions and input schemas. */
const int = (minimum: number, maximum: number) => ({ type: "integer", minimum, maximum });
const contractTools: { name: string; description: string; inputSchema: unknown }[] = [
  {
    name: "echo",
    description: "Returns the message, padded to pad_to_bytes bytes.",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" }, pad_to_bytes: int(0, MIB) },
      required: ["message"],
    },
  },
  {
    name: "fibonacci",
    description: "Computes the n-th Fibonacci number by naive recursion.",
    inputSchema: { type: "object", properties: { n: int(0, 35) }, required: ["n"] },
  },
  {
    name: "validate_document",
    description: "Validates a document against the perflab order schema.",
    inputSchema: { type: "object", properties: { document: { type: "object" } }, required: ["document"] },
  },
  {
    name: "transform_data",
    description: "Generates, sorts, groups and aggregates size records.",
    inputSchema: { type: "object", properties: { size: int(1, 100000) }, required: ["size"] },
  },
  {
    name: "sleep",
    description: "Waits ms milliseconds, like a database call.",
    inputSchema: { type: "object", properties: { ms: int(0, 10000) }, required: ["ms"] },
  },
  {
    name: "fetch_upstream",
    description: "Fetches the fixture API's /delay endpoint.",
    inputSchema: { type: "object", properties: { delay_ms: int(0, 10000) }, required: ["delay_ms"] },
  },
  {
    name: "search_products",
    description: "Searches products and returns the most popular ones.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", pattern: "^[a-z]{1,32}$" },
        limit: { ...int(1, 50), default: 10 },
      },
      required: ["query"],
    },
  },
  {
    name: "get_user_cart",
    description: "Returns a user's cart, recommended product and recent orders.",
    inputSchema: { type: "object", properties: { user_id: int(1, 1000) }, required: ["user_id"] },
  },
  {
    name: "checkout",
    description: "Prices items and records an order for a user.",
    inputSchema: {
      type: "object",
      properties: {
        user_id: int(1, 1000),
        items: {
          type: "array",
          minItems: 1,
          maxItems: 10,
          items: {
            type: "object",
            properties: { product_id: int(1, 100000), quantity: int(1, 10) },
            required: ["product_id", "quantity"],
          },
        },
      },
      required: ["user_id", "items"],
    },
  },
  {
    name: "get_user",
    description: "Looks up a user by primary key in Postgres.",
    inputSchema: { type: "object", properties: { id: int(1, 100000) }, required: ["id"] },
  },
];

/** I/O tool calls whose results every server must return identically after a fixture reset. */
const ioCalls: Call[] = [
  { name: "fetch_upstream", arguments: { delay_ms: 5 } },
  { name: "search_products", arguments: { query: "lamp", limit: 3 } },
  { name: "search_products", arguments: { query: "toys" } },
  { name: "get_user_cart", arguments: { user_id: 1000 } },
  {
    name: "checkout",
    arguments: {
      user_id: 7,
      items: [
        { product_id: 42, quantity: 2 },
        { product_id: 99999, quantity: 1 },
      ],
    },
  },
  // Product 6344 is 7th by popularity (9959): 10 more move it into the top 5 that search returns.
  {
    name: "checkout",
    arguments: {
      user_id: 8,
      items: [
        { product_id: 1, quantity: 1 },
        { product_id: 6344, quantity: 10 },
      ],
    },
  },
  { name: "get_user_cart", arguments: { user_id: 7 } },
  { name: "search_products", arguments: { query: "lamp", limit: 1 } },
  { name: "get_user", arguments: { id: 42 } },
];
/** Section 5.3's row 42, as get_user and /rest/users/42 return it. */
const user42 = '{"id":42,"name":"User 42","email":"user42@example.com","created_at":"2024-01-01T00:42:00Z"}';

type Product = { id: number; name: string; category: string; price_cents: number; stock: number };

/** Section 4.4's generator on unsigned 32-bit integers. */
function xorshift32(seed: number) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/**
 * The fixtures of section 5 (products of 5.1, the Redis seed of 5.2) and what each I/O tool of
 * section 4 returns on them, with checkout's writes applied in call order. Checked against
 * vectors.json's `fixtures` samples by the first test.
 */
function fixtureModel() {
  const ADJECTIVES =
    "amber bold crisp dusty eager fancy gentle hollow icy jolly keen lucky mellow noble plain quiet";
  const NOUNS =
    "anchor basket candle drum easel fork globe hammer jar kettle lamp mirror needle oven pillow quilt";
  const CATEGORIES = ["books", "electronics", "garden", "grocery", "health", "home", "sports", "toys"];
  const [adjectives, nouns] = [ADJECTIVES.split(" "), NOUNS.split(" ")];
  const productRng = xorshift32(20240601);
  const products: Product[] = [];
  for (let id = 1; id <= 100_000; id++) {
    const name = `${adjectives[productRng() % 16]} ${nouns[productRng() % 16]}`;
    const category = CATEGORIES[productRng() % 8]!;
    products.push({
      id,
      name,
      category,
      price_cents: 99 + (productRng() % 49901),
      stock: productRng() % 500,
    });
  }
  const search = (q: string, limit: number) => {
    const found = products.filter((p) => p.category === q || p.name.split(" ").includes(q));
    return { total: found.length, items: found.slice(0, limit) };
  };

  const carts = new Map<number, Map<number, number>>();
  const histories = new Map<number, string[]>();
  const popularity = new Map<number, number>();
  const seedRng = xorshift32(1000003);
  for (let uid = 1; uid <= 1000; uid++) {
    const cart = new Map<number, number>();
    for (let n = 1 + (seedRng() % 5); n > 0; n--) {
      const pid = 1 + (seedRng() % 100_000);
      cart.set(pid, 1 + (seedRng() % 5));
    }
    const history: string[] = [];
    for (let n = 0; n < 5; n++) {
      const pid = 1 + (seedRng() % 100_000);
      history.push(JSON.stringify({ items: [{ product_id: pid, quantity: 1 + (seedRng() % 3) }] }));
    }
    carts.set(uid, cart);
    histories.set(uid, history);
  }
  for (let n = 0; n < 1000; n++) {
    const pid = 1 + (seedRng() % 100_000);
    popularity.set(pid, seedRng() % 10_000);
  }
  /** ZRANGE products:popularity 0 4 REV WITHSCORES: score descending, then member descending. */
  const top5 = () =>
    [...popularity]
      .sort(([a, sa], [b, sb]) => sb - sa || (String(b) < String(a) ? -1 : String(b) > String(a) ? 1 : 0))
      .slice(0, 5)
      .map(([product_id, score]) => ({ product_id, score }));
  const cartItems = (uid: number) =>
    [...(carts.get(uid) ?? [])]
      .sort(([a], [b]) => a - b)
      .map(([product_id, quantity]) => ({ product_id, quantity }));
  const recommended = (uid: number) => 1 + ((uid * 7919) % 100_000);
  /** Section 5.3: created_at is 2024-01-01T00:00:00Z plus id minutes. */
  const userRow = (id: number) => ({
    id,
    name: `User ${id}`,
    email: `user${id}@example.com`,
    created_at: new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString().replace(".000Z", "Z"),
  });
  let ordersCount = 0;

  /** The TEXT a call returns now; checkout also applies its writes. */
  function result(call: Call): string {
    const a = call.arguments as {
      delay_ms: number;
      query: string;
      limit?: number;
      user_id: number;
      items: { product_id: number; quantity: number }[];
      id: number;
    };
    switch (call.name) {
      case "fetch_upstream":
        return JSON.stringify({ delay_ms: a.delay_ms });
      case "search_products": {
        const { total, items } = search(a.query, a.limit ?? 10);
        return JSON.stringify({ query: a.query, total, items, popular: top5() });
      }
      case "get_user_cart": {
        const items = cartItems(a.user_id);
        return JSON.stringify({
          user_id: a.user_id,
          items,
          item_count: items.reduce((sum, i) => sum + i.quantity, 0),
          recommended: products[recommended(a.user_id) - 1],
          recent_orders: (histories.get(a.user_id) ?? []).slice(-5).map((order) => JSON.parse(order)),
        });
      }
      case "checkout": {
        const items = a.items.map((i) => ({
          product_id: i.product_id,
          quantity: i.quantity,
        }));
        ordersCount += 1;
        const history = [...(histories.get(a.user_id) ?? []), JSON.stringify({ items })].slice(-50);
        histories.set(a.user_id, history);
        for (const i of items) popularity.set(i.product_id, (popularity.get(i.product_id) ?? 0) + i.quantity);
        const subtotal = items.reduce(
          (sum, i) => sum + products[i.product_id - 1]!.price_cents * i.quantity,
          0,
        );
        const tax = Math.floor((subtotal * 8 + 50) / 100);
        return JSON.stringify({
          order_number: ordersCount,
          user_id: a.user_id,
          item_count: items.reduce((sum, i) => sum + i.quantity, 0),
          subtotal_cents: subtotal,
          tax_cents: tax,
          total_cents: subtotal + tax,
        });
      }
      case "get_user":
        return JSON.stringify(userRow(a.id));
      default:
        throw new Error(`no model of ${call.name}`);
    }
  }

  /** The model's view of each sample in vectors.json's `fixtures`, in the same shape. */
  const samples = (fixtures: Record<string, unknown>) => ({
    postgres_users: (fixtures.postgres_users as { id: number }[]).map((u) => userRow(u.id)),
    xorshift32_seed_42_first_5: Array.from({ length: 5 }, xorshift32(42)),
    products: (fixtures.products as Product[]).map((p) => products[p.id - 1]),
    product_search: (fixtures.product_search as { q: string; limit: number }[]).map(({ q, limit }) => ({
      q,
      limit,
      response: search(q, limit),
    })),
    recommended_product_ids: Object.fromEntries(
      Object.keys(fixtures.recommended_product_ids as object).map((uid) => [uid, recommended(Number(uid))]),
    ),
    redis_popularity_members: popularity.size,
    redis_popularity_top_5: top5(),
    redis_user_1_cart: cartItems(1),
    redis_user_1_history: histories.get(1),
    redis_user_1000_cart: cartItems(1000),
    redis_user_1000_history: histories.get(1000),
  });
  return { result, samples };
}

/** What every server must return for ioCalls, in order, after a fixture reset (before any write). */
const fixtureSamples = fixtureModel().samples(vectorFile.fixtures);
const expectedIo = (() => {
  const model = fixtureModel();
  return ioCalls.map((call) => model.result(call));
})();

/** Arguments section 4 rejects (missing, wrong type, out of range, against the schema). */
const badCalls: Call[] = [
  { name: "echo", arguments: {} },
  { name: "echo", arguments: { message: 42 } },
  { name: "echo", arguments: { message: `${bigMessage}x` } },
  { name: "echo", arguments: { message: "hi", pad_to_bytes: MIB + 1 } },
  { name: "echo", arguments: { message: "hi", pad_to_bytes: -1 } },
  { name: "fibonacci", arguments: { n: 36 } },
  { name: "fibonacci", arguments: { n: -1 } },
  { name: "fibonacci", arguments: { n: "ten" } },
  { name: "fibonacci", arguments: {} },
  { name: "validate_document", arguments: { document: "not an object" } },
  { name: "validate_document", arguments: { document: [1, 2] } },
  { name: "validate_document", arguments: {} },
  { name: "transform_data", arguments: { size: 100001 } },
  { name: "transform_data", arguments: { size: 0 } },
  { name: "transform_data", arguments: {} },
  { name: "sleep", arguments: { ms: -1 } },
  { name: "sleep", arguments: { ms: 10001 } },
  { name: "sleep", arguments: {} },
  { name: "fetch_upstream", arguments: { delay_ms: 10001 } },
  { name: "fetch_upstream", arguments: { delay_ms: -1 } },
  { name: "search_products", arguments: { query: "" } },
  { name: "search_products", arguments: { query: "Lamp" } },
  { name: "search_products", arguments: { query: "a".repeat(33) } },
  { name: "search_products", arguments: { query: "lamp", limit: 0 } },
  { name: "search_products", arguments: { query: "lamp", limit: 51 } },
  { name: "get_user_cart", arguments: { user_id: 0 } },
  { name: "get_user_cart", arguments: { user_id: 1001 } },
  { name: "checkout", arguments: { user_id: 1, items: [] } },
  {
    name: "checkout",
    arguments: { user_id: 1, items: Array.from({ length: 11 }, () => ({ product_id: 1, quantity: 1 })) },
  },
  { name: "checkout", arguments: { user_id: 1, items: [{ product_id: 0, quantity: 1 }] } },
  { name: "checkout", arguments: { user_id: 1, items: [{ product_id: 1, quantity: 11 }] } },
  { name: "checkout", arguments: { user_id: 1, items: [{ product_id: 1 }] } },
  { name: "checkout", arguments: { user_id: 1001, items: [{ product_id: 1, quantity: 1 }] } },
  { name: "get_user", arguments: { id: 0 } },
  { name: "get_user", arguments: { id: 100001 } },
  { name: "get_user", arguments: { id: "42" } },
];

/** Valid calls of the tools that need a backend (stateless pass runs without any). */
const backendCalls: Call[] = [
  { name: "fetch_upstream", arguments: { delay_ms: 1 } },
  { name: "search_products", arguments: { query: "lamp" } },
  { name: "get_user_cart", arguments: { user_id: 1 } },
  { name: "checkout", arguments: { user_id: 1, items: [{ product_id: 1, quantity: 1 }] } },
  { name: "get_user", arguments: { id: 1 } },
];

/** Golden vectors the stateless pass repeats. */
const statelessVectors = [
  'echo "hello" padded to 70',
  'echo "héllo" padded to 8',
  "fibonacci 30",
  "transform_data 1000",
  "validate_document nested items",
];

/** Section 7: `/debug/runtime` keys in order, and what each runtime reports where they differ. */
const runtimeKeys = [
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
];
/** "integer": a whole number; "number": any number; "null"; or an exact value. */
type Expect = "integer" | "number" | "null" | "integer|null" | 0;
const runtimeFields = ["heap_used_bytes", "heap_total_bytes", "gc_count", "gc_pause_total_ms", "goroutines"];
/** Section 7's per-runtime table: `null` means the runtime has no such figure, never zero. */
const perRuntime: Record<string, Record<string, Expect>> = {
  go: {
    heap_used_bytes: "integer",
    heap_total_bytes: "integer",
    gc_count: "integer",
    gc_pause_total_ms: "number",
    goroutines: "integer",
  },
  java: {
    heap_used_bytes: "integer",
    heap_total_bytes: "integer",
    gc_count: "integer",
    // The GC MXBeans' times are whole milliseconds.
    gc_pause_total_ms: "integer",
    goroutines: "integer|null",
  },
  node: {
    heap_used_bytes: "integer",
    heap_total_bytes: "integer",
    gc_count: "integer",
    gc_pause_total_ms: "number",
    goroutines: "null",
  },
  // JavaScriptCore emits no gc entries to perf_hooks.
  bun: {
    heap_used_bytes: "integer",
    heap_total_bytes: "integer",
    gc_count: "null",
    gc_pause_total_ms: "null",
    goroutines: "null",
  },
  python: {
    heap_used_bytes: "null",
    heap_total_bytes: "null",
    gc_count: "integer",
    // Timed by a gc.callbacks hook (CPython keeps no pause figures).
    gc_pause_total_ms: "number",
    goroutines: "null",
  },
  // No garbage collector: 0 and 0 are exact.
  rust: {
    heap_used_bytes: "null",
    heap_total_bytes: "null",
    gc_count: 0,
    gc_pause_total_ms: 0,
    goroutines: "null",
  },
};

const textOf = (result: unknown) => {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
};

/** Section 3: a result is exactly one text content and no structuredContent; null when it is. */
function shapeProblem(result: unknown): string | null {
  const r = result as { content?: { type?: string; text?: unknown }[]; structuredContent?: unknown };
  if (!Array.isArray(r.content) || r.content.length !== 1) return `${r.content?.length ?? 0} contents`;
  if (r.content[0]!.type !== "text" || typeof r.content[0]!.text !== "string") return "content is not text";
  if (r.structuredContent !== undefined) return "structuredContent present";
  return null;
}

/** The TEXT of a successful tools/call, after checking the result's shape. */
function successText(result: unknown, what: string): string {
  expect((result as { isError?: boolean }).isError ?? false, `${what}: ${textOf(result).slice(0, 300)}`).toBe(
    false,
  );
  expect(shapeProblem(result), `${what}: result shape`).toBeNull();
  return textOf(result);
}

/** Why a call that must be rejected was not ("" when it was: an isError result or JSON-RPC -32602). */
async function notRejected(client: Client, call: Call): Promise<string> {
  try {
    const result = await client.callTool(call);
    if (!result.isError) return `accepted: ${textOf(result).slice(0, 120)}`;
    const problem = shapeProblem(result);
    return problem ? `isError result with ${problem}` : "";
  } catch (error) {
    if (error instanceof McpError) {
      // The contract fixes -32602 for bad arguments; an unknown tool may get another code.
      return error.code === -32602 || call.name === "no_such_tool" ? "" : `JSON-RPC error ${error.code}`;
    }
    return `no JSON-RPC answer: ${(error as Error).message}`;
  }
}

const describeCall = (call: Call) => `${call.name} ${JSON.stringify(call.arguments).slice(0, 80)}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** What each server returned, by check; every server's results must equal the reference's. */
const observed = new Map<string, Map<string, unknown>>();
function sameAsReference(server: string, key: string, value: unknown) {
  const own = observed.get(server) ?? new Map<string, unknown>();
  observed.set(server, own);
  own.set(key, value);
  if (server === REFERENCE) return;
  const reference = observed.get(REFERENCE);
  if (!reference?.has(key)) {
    throw new Error(`no ${REFERENCE} result for "${key}": the ${REFERENCE} server must run and pass first`);
  }
  expect(value, `${key}: ${server} vs ${REFERENCE}`).toEqual(reference.get(key));
}

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "perflab-conformance", version: "1.0.0" },
  },
});
type Answer = {
  status: number;
  contentType: string;
  sessionId: string | null;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC message as parsed
  message: any;
};

/** A raw POST to the MCP endpoint, without the SDK, to see status codes and headers. */
async function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...mcpHeaders, ...headers },
    body: JSON.stringify(message),
  });
  const body = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    contentType,
    sessionId: response.headers.get("mcp-session-id"),
    body,
    message: parseMessage(contentType, body),
  };
}

/**
 * The JSON body, or the first SSE event with data (comments and an empty priming event may precede it);
 * undefined for an empty or non-JSON body (error statuses may come with plain text).
 */
function parseMessage(contentType: string, body: string): unknown {
  if (!body.trim()) return undefined;
  if (!contentType.includes("text/event-stream")) {
    try {
      return JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data.trim()) return JSON.parse(data);
  }
  return undefined;
}

/**
 * A POST through node:http, which (unlike fetch) sends the Host header given and still reads the answer
 * of a server that answers a too-large body before reading all of it.
 */
function httpPost(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; sessionId: string | null; body: string; reset?: boolean }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(
      url,
      { method: "POST", headers: { ...mcpHeaders, ...headers, "content-length": Buffer.byteLength(body) } },
      (response) => {
        answered = true;
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers["content-type"] ?? "",
            sessionId: (response.headers["mcp-session-id"] as string | undefined) ?? null,
            body: text,
          });
        response.on("end", done).on("error", done);
      },
    );
    // A server may answer 413 and close the connection while the body is still being sent; the
    // client may then see the reset before it reads the answer (status 0, `reset`).
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === "ECONNRESET" || error.code === "EPIPE")
        resolve({ status: 0, contentType: "", sessionId: null, body: "", reset: true });
      else reject(error);
    });
    request.end(body);
  });
}

/**
 * The MCP specification's guard for local servers against DNS rebinding: a page elsewhere whose name
 * now resolves to 127.0.0.1 reaches the server under that name, often with its own Origin. Each such
 * request is refused (403 or 421) before any method runs, so no session is opened and no tool listed.
 */
async function expectRefusesForeignHosts(mcpUrl: string, port: number) {
  const foreign: Record<string, string>[] = [
    { host: `rebound.example:${port}` },
    { host: "rebound.example" },
    { host: `rebound.example:${port}`, origin: `http://rebound.example:${port}` },
  ];
  for (const message of [initialize(1, "2025-11-25"), { jsonrpc: "2.0", id: 2, method: "tools/list" }]) {
    for (const headers of foreign) {
      const what = `${message.method} with ${JSON.stringify(headers)}`;
      const answer = await httpPost(mcpUrl, JSON.stringify(message), headers);
      expect([403, 421], `${what}: ${answer.status} ${answer.body.slice(0, 200)}`).toContain(answer.status);
      expect(answer.sessionId, what).toBeNull();
      expect(answer.body, what).not.toMatch(/"(result|tools)"/);
    }
  }
}

/** A plain route: status, content type and the body as text (canonical JSON is compared byte for byte). */
async function route(url: string) {
  const response = await fetch(url);
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body: await response.text(),
  };
}

let fixtures: Fixtures;
let backends: Record<string, string>;

beforeAll(async () => {
  fixtures = new Fixtures({
    fixturesDir: path.join(repoRoot, "servers/fixtures"),
    labDatabaseUrl: inject("databaseUrl"),
    log: silent,
  });
  backends = await fixtures.ensure();
});

afterAll(async () => {
  await fixtures?.close();
});

it("finds every reference server's manifest with all ten tools, the Go reference first", () => {
  expect(ordered[0]?.name, `servers/${REFERENCE}/perflab.json is the reference and must exist`).toBe(
    REFERENCE,
  );
  const allTools = contractTools.map((t) => t.name).sort();
  for (const base of REFERENCE_SERVERS) {
    const server = catalog.find((s) => s.base === base);
    expect(
      server,
      `servers/${base}/perflab.json (a reference server) must exist with a start command`,
    ).toBeDefined();
    expect(
      [...server!.tools].sort(),
      `servers/${base}/perflab.json tools: a reference server lists all ten`,
    ).toEqual(allTools);
  }
  for (const server of catalog) {
    if (servesMcp(server)) expect(server.tools.length).toBeGreaterThan(0);
    else expect(server.tools, `servers/${server.base}/perflab.json: REST only, no tools`).toEqual([]);
    expect(manifestRuntimeName(server), `servers/${server.base}/perflab.json runtime`).toMatch(
      /^[a-z][a-z0-9-]*$/,
    );
  }
  expect(Buffer.byteLength(bigMessage)).toBe(MIB);
});

it("derives the I/O tools' expected results from generators that reproduce vectors.json's fixtures", () => {
  // Every sample (a sample added to vectors.json must be modelled in fixtureModel too).
  expect(fixtureSamples).toEqual(vectorFile.fixtures);
});

/** Starts a server and waits for its health check; the caller stops it. */
async function start(server: CatalogEntry, cell: string, env: Record<string, string>) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const running = await localDriver.start({ server, cellId: `conformance-${cell}`, port, env });
  await waitForHealthy({
    baseUrl,
    mcpPath: servesMcp(server) ? server.mcpPath : null,
    healthPath: server.healthPath,
    timeoutMs: 60_000,
    exited: running.exited,
  }).catch((error) => {
    throw new Error(`${cell} did not become healthy: ${error.message}\n${running.logTail()}`);
  });
  return { running, baseUrl, port };
}

/** The session's GET stream answers 200 with text/event-stream at once; then it is closed. */
async function expectEventStreamOpens(mcpUrl: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const stream = await fetch(mcpUrl, {
    headers: { ...headers, accept: "text/event-stream" },
    signal: abort.signal,
  });
  expect(stream.status).toBe(200);
  expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
  abort.abort();
}

/** Section 1's startup failure: the server exits with a non-zero code (within 15 s) instead of serving. */
async function expectRefusedStart(server: CatalogEntry, cell: string, env: Record<string, string>) {
  const bad = await localDriver.start({ server, cellId: `conformance-${cell}`, port: await freePort(), env });
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    bad.exited,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), 15_000);
    }),
  ]);
  clearTimeout(timer);
  if (!exit) await bad.stop(1_000);
  const what = `${JSON.stringify(env)}: ${exit ? JSON.stringify(exit) : "still running after 15 s"}`;
  expect(exit !== null && exit.exitCode !== null && exit.exitCode !== 0, what).toBe(true);
}

/**
 * Section 1: the signal handlers are in place before the start line, so a SIGTERM sent the moment
 * the line is read is a graceful stop (code 0), not the default action. The server is spawned
 * directly (in a process group of its own) so the signal follows the line with no polling between.
 */
async function signalAtStartLine(server: CatalogEntry, env: Record<string, string>) {
  const port = await freePort();
  const [command, ...args] = server.start.command;
  const child = spawn(command!, args, {
    cwd: server.dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      ...server.start.env,
      ...env,
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const line = `listening on http://127.0.0.1:${port}`;
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    if (!output.includes(line) && (output + d).includes(line)) child.kill("SIGTERM");
    output += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    output += d;
  });
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, "SIGKILL"); // any process the server left behind
  } catch {}
  return { code, signal, sawLine: output.includes(line), output: output.slice(-2000) };
}

/** Section 1: on SIGTERM a server exits with code 0 within 5 s (SIGKILL after that fails the check). */
async function stop(running: RunningServer | undefined) {
  if (!running) return;
  const exit = await running.stop(5_000);
  expect(exit, `exit after SIGTERM\n${running.logTail().slice(-2000)}`).toMatchObject({
    exitCode: 0,
    signal: null,
  });
}

/** Section 7: `runtime.name` is the first word of the manifest's `runtime` ("go 1.26" → "go"). */
const manifestRuntimeName = (server: CatalogEntry) => server.runtime.trim().split(/\s+/)[0]!;

function expectRuntime(
  server: CatalogEntry,
  body: Record<string, unknown>,
  mcp: Record<string, unknown> | null,
) {
  expect(Object.keys(body)).toEqual(runtimeKeys);
  expect(body).toMatchObject({
    runtime: { name: expect.any(String), version: expect.any(String) },
    pid: expect.any(Number),
    uptime_ms: expect.any(Number),
    parallelism: expect.any(Number),
    rss_bytes: expect.any(Number),
    threads: expect.any(Number),
  });
  expect(body.mcp).toEqual(mcp);
  const runtime = (body.runtime as { name: string }).name;
  expect(
    runtime,
    `runtime.name: the first word of servers/${server.base}/perflab.json's runtime "${server.runtime}"`,
  ).toBe(manifestRuntimeName(server));
  expect(Number.isInteger(body.parallelism) && (body.parallelism as number) >= 1, "parallelism").toBe(true);
  expect(Number.isInteger(body.threads) && (body.threads as number) >= 1, "threads").toBe(true);
  expect(body.rss_bytes).toBeGreaterThan(1_000_000);
  const rules: Record<string, Expect | "number|null"> = perRuntime[runtime] ?? {};
  for (const key of runtimeFields) {
    const rule = rules[key] ?? "number|null";
    const value = body[key];
    const what = `${key} of ${runtime} = ${JSON.stringify(value)}, expected ${rule}`;
    if (rule === 0) expect(value, what).toBe(0);
    else if (rule === "null") expect(value, what).toBeNull();
    else if (rule === "number") expect(typeof value === "number" && value >= 0, what).toBe(true);
    else if (rule === "integer") expect(Number.isInteger(value) && (value as number) >= 0, what).toBe(true);
    else expect(value === null || (Number.isInteger(value) && (value as number) >= 0), what).toBe(true);
  }
  expectPausesShape(runtime, body.gc_pauses_recent);
}

/**
 * Variants that keep one stateful process and change how it works inside (Go's direct JSON
 * decoding): they take the whole stateful pass beside the servers and must answer exactly as they do.
 */
const inProcessVariants = withVariants(ordered).filter(
  (v) => v.variant !== null && v.start.env.MCP_STATELESS !== "1",
);

for (const server of [...ordered, ...inProcessVariants]) {
  const name = server.name;

  describe(`server ${name}`, () => {
    let running: RunningServer;
    let baseUrl: string;
    let mcpUrl: string;
    const clients: Client[] = [];

    async function connectSession() {
      const client = new Client({ name: "perflab-conformance", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    }
    const connect = async () => (await connectSession()).client;
    const session = async () => clients[0] ?? (await connect());

    /** `mcp.sessions` of /debug/runtime. */
    async function openSessions(): Promise<number> {
      const sessions = (
        (await (await fetch(`${baseUrl}/debug/runtime`)).json()) as { mcp: { sessions: unknown } }
      ).mcp.sessions;
      expect(Number.isInteger(sessions), `mcp.sessions = ${JSON.stringify(sessions)}`).toBe(true);
      return sessions as number;
    }
    /** Waits up to 5 s for `mcp.sessions` to reach `expected` (a session may close asynchronously). */
    async function expectOpenSessions(expected: number, what: string) {
      const deadline = performance.now() + 5_000;
      let seen = await openSessions();
      while (seen !== expected && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await openSessions();
      }
      expect(seen, `mcp.sessions ${what}`).toBe(expected);
    }

    beforeAll(async () => {
      await fixtures.reset();
      ({ running, baseUrl } = await start(server, name.replace(":", "~"), backends));
      mcpUrl = `${baseUrl}${server.mcpPath}`;
    });

    afterAll(async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await stop(running);
    });

    it("initializes with serverInfo perflab-<name> 1.0.0 and the tools capability only", async () => {
      const client = await session();
      expect(client.getServerVersion()).toMatchObject({ name: `perflab-${server.base}`, version: "1.0.0" });
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.tools).toBeDefined();
      expect(capabilities?.prompts).toBeUndefined();
      expect(capabilities?.resources).toBeUndefined();
      expect(client.getInstructions()).toBeUndefined();
    });

    it("refuses a request that names another host, with a foreign Origin or without (DNS rebinding)", async () => {
      await expectRefusesForeignHosts(mcpUrl, Number(new URL(baseUrl).port));
    });

    it("lists the contract's tools with the same descriptions and input schemas as Go", async () => {
      const { tools } = await (await session()).listTools();
      const normalized = tools
        .map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: stripSdkExtras(t.inputSchema),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
      expect(normalized.map((t) => t.name)).toEqual([...server.tools].sort());
      if (REFERENCE_SERVERS.includes(server.base)) {
        expect(
          normalized.map((t) => t.name),
          "a reference server lists all ten tools",
        ).toEqual(contractTools.map((t) => t.name).sort());
      }
      const own = (list: typeof normalized) => list.filter((t) => server.tools.includes(t.name));
      if (name === REFERENCE) {
        observed.set(REFERENCE, new Map([["tools/list", normalized]]));
        const contract = [...contractTools].sort((a, b) => a.name.localeCompare(b.name));
        expect(normalized).toEqual(own(contract));
      } else {
        const reference = observed.get(REFERENCE)?.get("tools/list") as typeof normalized | undefined;
        if (!reference) throw new Error(`no ${REFERENCE} tools/list: the ${REFERENCE} server must run first`);
        expect(normalized).toEqual(own(reference));
      }
    });

    it.each(vectors.map((v) => [v.name, v] as [string, Vector]))(
      "returns the golden result: %s",
      async (_, vector) => {
        if (!server.tools.includes(vector.tool)) return;
        const result = await (await session()).callTool({ name: vector.tool, arguments: vector.arguments });
        const text = successText(result, vector.name);
        if (vector.text !== undefined) expect(text).toBe(vector.text);
        else {
          expect(Buffer.byteLength(text)).toBe(Number(vector.text_bytes));
          expect(sha256(text)).toBe(vector.text_sha256);
        }
      },
    );

    it("returns the fixtures' I/O tool results, the same as Go, after a fixture reset", async () => {
      const client = await session();
      for (const [i, call] of ioCalls.entries()) {
        if (!server.tools.includes(call.name)) continue;
        const text = successText(await client.callTool(call), describeCall(call));
        expect(text, `${describeCall(call)}: the contract's result on the fixtures`).toBe(expectedIo[i]);
        sameAsReference(name, `io ${i}: ${describeCall(call)}`, text);
      }
    });

    it.runIf(server.tools.includes("sleep"))(
      "sleeps on a timer: sleep 10 takes at least 10 ms and other calls are answered meanwhile",
      async () => {
        const client = await session();
        const started = performance.now();
        const text = successText(await client.callTool({ name: "sleep", arguments: { ms: 10 } }), "sleep 10");
        expect(performance.now() - started).toBeGreaterThanOrEqual(10);
        expect(text).toBe('{"slept_ms":10}');
        sameAsReference(name, "sleep 10", text);

        let sleeping = true;
        const long = client.callTool({ name: "sleep", arguments: { ms: 500 } }).then((r) => {
          sleeping = false;
          return r;
        });
        const echo = await client.callTool({ name: "echo", arguments: { message: "meanwhile" } });
        expect(sleeping, "echo answered while sleep 500 runs").toBe(true);
        expect(successText(echo, "echo")).toBe("meanwhile");
        expect(successText(await long, "sleep 500")).toBe('{"slept_ms":500}');
      },
    );

    it("echoes 1 KiB, 10 KiB, 100 KiB and 1 MiB messages (JSON-escaped on the wire) unchanged, as Go does", async () => {
      const client = await session();
      for (const bytes of sweepSizes) {
        const message = payload(bytes);
        expect(Buffer.byteLength(message)).toBe(bytes);
        for (const args of [{ message }, { message, pad_to_bytes: bytes }]) {
          const what = `echo of ${bytes} bytes${"pad_to_bytes" in args ? " padded to its own size" : ""}`;
          const text = successText(await client.callTool({ name: "echo", arguments: args }), what);
          expect(Buffer.byteLength(text), what).toBe(bytes);
          expect(text === message, `${what} returns the message unchanged`).toBe(true);
          sameAsReference(name, what, sha256(text));
        }
      }
    });

    it("serves the plain routes: /health, /rest/time and /rest/users/:id", () =>
      expectPlainRoutes(name, baseUrl));

    it("answers bad arguments with an error and stays up", async () => {
      const client = await session();
      const failures: string[] = [];
      for (const call of [...badCalls, { name: "no_such_tool", arguments: {} }]) {
        if (call.name !== "no_such_tool" && !server.tools.includes(call.name)) continue;
        const why = await notRejected(client, call);
        if (why) failures.push(`${describeCall(call)}: ${why}`);
      }
      expect(failures).toEqual([]);
      const health = await fetch(`${baseUrl}${server.healthPath}`);
      expect(health.status).toBe(200);
      const after = await client.callTool({ name: "fibonacci", arguments: { n: 10 } });
      expect(successText(after, "fibonacci 10 after bad calls")).toBe('{"n":10,"value":55}');
    });

    it("counts a session in /debug/runtime from initialize until DELETE", async () => {
      await session();
      const before = await openSessions();
      expect(before, "the suite's first session is open").toBeGreaterThanOrEqual(1);
      const { client, transport } = await connectSession();
      await expectOpenSessions(before + 1, "after initialize");
      await transport.terminateSession();
      await client.close();
      await expectOpenSessions(before, "after DELETE");
    });

    it("serves 100 concurrent sessions, counts them and ends them with DELETE", async () => {
      const before = await openSessions();
      const sessions = await Promise.all(Array.from({ length: 100 }, () => connectSession()));
      await expectOpenSessions(before + 100, "with 100 more sessions");
      const results = await Promise.all(
        sessions.map(({ client }, i) => client.callTool({ name: "echo", arguments: { message: `s${i}` } })),
      );
      expect(results.map((r, i) => successText(r, `session ${i}`))).toEqual(results.map((_, i) => `s${i}`));
      await Promise.all(sessions.map(({ transport }) => transport.terminateSession()));
      await Promise.all(sessions.map(({ client }) => client.close()));
      await expectOpenSessions(before, "after the 100 sessions' DELETE");
    });

    it("opens the GET stream and ends the session with DELETE", async () => {
      const init = await post(mcpUrl, initialize(1, "2025-06-18"));
      expect(init.status).toBe(200);
      expect(init.contentType, "a POST is answered with SSE by default").toMatch(/^text\/event-stream\b/);
      expect(init.message?.result?.protocolVersion).toBe("2025-06-18");
      expect(init.message?.result?.serverInfo).toMatchObject({
        name: `perflab-${server.base}`,
        version: "1.0.0",
      });
      const sessionId = init.sessionId;
      expect(sessionId).toBeTruthy();
      const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-06-18" };
      const notified = await post(mcpUrl, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      expect(notified.status, "a POST of notifications only is answered 202").toBe(202);
      expect(notified.body).toBe("");

      await expectEventStreamOpens(mcpUrl, headers);

      const unknown = await post(
        mcpUrl,
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        {
          ...headers,
          "mcp-session-id": "00000000-0000-4000-8000-000000000000",
        },
      );
      expect(unknown.status, "an unknown session is 404").toBe(404);

      const del = await fetch(mcpUrl, { method: "DELETE", headers });
      expect([200, 204]).toContain(del.status);
      const after = await post(mcpUrl, { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
      expect(after.status, "a deleted session is 404").toBe(404);
    });

    it("reports runtime memory in the common /debug/runtime shape", async () => {
      const response = await fetch(`${baseUrl}/debug/runtime`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
      const body = await response.json();
      expectRuntime(server, body, { stateless: false, json_response: false, sessions: expect.any(Number) });
    });

    it.runIf(server.tools.includes("transform_data") && pausesRule[manifestRuntimeName(server)] === "pauses")(
      "lists each GC pause while a tool makes garbage: the longest is positive and within the total",
      async () => {
        const init = await post(mcpUrl, initialize(1, "2025-11-25"));
        const headers = { "mcp-session-id": init.sessionId!, "mcp-protocol-version": "2025-11-25" };
        await post(mcpUrl, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
        // Read after each call: CPython collects ~30 times in 10,000 records (more than the list's 64
        // in 100,000), while a JVM's young generation takes tens of MB before its first collection.
        const size = manifestRuntimeName(server) === "python" ? 10_000 : 100_000;
        const params = { name: "transform_data", arguments: { size } };
        const seen = await collectUnderLoad({
          read: async () => (await fetch(`${baseUrl}/debug/runtime`)).json(),
          allocate: async () => {
            const call = await post(mcpUrl, { jsonrpc: "2.0", id: 2, method: "tools/call", params }, headers);
            expect(call.status).toBe(200);
          },
          maxCalls: 100,
        });
        await fetch(mcpUrl, { method: "DELETE", headers: { ...mcpHeaders, ...headers } });
        expectPausesUnderLoad(manifestRuntimeName(server), seen);
      },
      60_000,
    );

    // Last: it stops the server (afterAll's stop then finds it exited).
    it.runIf(server.tools.includes("sleep"))(
      "on SIGTERM closes the GET stream at once, finishes a sleep in flight and exits 0 within 5 s",
      async () => {
        const init = await post(mcpUrl, initialize(1, "2025-11-25"));
        expect(init.status).toBe(200);
        const headers = { "mcp-session-id": init.sessionId!, "mcp-protocol-version": "2025-11-25" };
        await post(mcpUrl, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
        const stream = await fetch(mcpUrl, { headers: { ...headers, accept: "text/event-stream" } });
        expect(stream.status).toBe(200);
        const streamEnded = stream.text().then(
          () => performance.now(),
          () => performance.now(),
        );
        const sleep = { name: "sleep", arguments: { ms: 2000 } };
        const answered = post(
          mcpUrl,
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: sleep },
          headers,
        ).then((answer) => ({ answer, at: performance.now() }));
        // Let the call reach the server before the signal.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const signalled = performance.now();
        const exit = await running.stop(10_000);
        const exitedAfter = performance.now() - signalled;
        expect(exit, `exit after SIGTERM\n${running.logTail().slice(-2000)}`).toMatchObject({
          exitCode: 0,
          signal: null,
        });
        expect(exitedAfter, "ms from SIGTERM to exit").toBeLessThan(5_000);
        const { answer, at } = await answered;
        expect(answer.status, "the sleep in flight is answered").toBe(200);
        expect(answer.message?.result?.content).toEqual([{ type: "text", text: '{"slept_ms":2000}' }]);
        expect(await streamEnded, "the GET stream ends before the sleep in flight is answered").toBeLessThan(
          at,
        );
      },
    );
  });
}

/** Section 7's plain routes, byte for byte, /rest/users/42 as Go answers it. */
async function expectPlainRoutes(name: string, baseUrl: string) {
  const json = /^application\/json\b/;
  const health = await route(`${baseUrl}/health`);
  expect(health).toMatchObject({ status: 200, body: '{"status":"ok"}' });
  expect(health.contentType).toMatch(json);

  const before = Date.now();
  const time = await route(`${baseUrl}/rest/time`);
  expect(time.status).toBe(200);
  expect(time.contentType).toMatch(json);
  expect(time.body).toMatch(/^\{"now_ms":\d+\}$/);
  const now = JSON.parse(time.body).now_ms as number;
  expect(now).toBeGreaterThanOrEqual(before - 1_000);
  expect(now).toBeLessThanOrEqual(Date.now() + 1_000);

  const user = await route(`${baseUrl}/rest/users/42`);
  expect(user).toMatchObject({ status: 200, body: user42 });
  expect(user.contentType).toMatch(json);
  sameAsReference(name, "GET /rest/users/42", user.body);

  for (const id of ["100001", "999999999"]) {
    const missing = await route(`${baseUrl}/rest/users/${id}`);
    expect(missing, `GET /rest/users/${id}`).toMatchObject({
      status: 404,
      body: '{"error":"not found"}',
    });
    expect(missing.contentType).toMatch(json);
  }
  // "%201" and "%2B1" are " 1" and "+1" percent-encoded, as a client sends them.
  for (const id of ["0", "abc", "01", "-1", "+1", "%2B1", "%201", "1e3", "1.5", "1234567890", "42x"]) {
    const bad = await route(`${baseUrl}/rest/users/${id}`);
    expect(bad, `GET /rest/users/${id}`).toMatchObject({ status: 400, body: '{"error":"invalid id"}' });
    expect(bad.contentType).toMatch(json);
  }
}

/**
 * A REST-only server (manifest protocols ["http"], no tools): section 7's routes, /debug/runtime with
 * `"mcp": null`, no MCP at its folder's mcpPath, section 1's refusals and a graceful SIGTERM.
 */
for (const server of restOnly) {
  const name = server.name;
  describe(`server ${name}, REST only`, () => {
    let running: RunningServer | undefined;
    let baseUrl: string;

    beforeAll(async () => {
      await fixtures.reset();
      ({ running, baseUrl } = await start(server, name, backends));
    });
    afterAll(() => stop(running));

    it("serves the plain routes: /health, /rest/time and /rest/users/:id", () =>
      expectPlainRoutes(name, baseUrl));

    it("answers no MCP initialize", async () => {
      const init = await post(`${baseUrl}/mcp`, initialize(1, "2025-11-25"));
      expect(init.status, `POST /mcp: ${init.status}`).toBeGreaterThanOrEqual(400);
      expect(init.message?.result).toBeUndefined();
    });

    it("reports runtime memory in the common /debug/runtime shape, with mcp null", async () => {
      const response = await fetch(`${baseUrl}/debug/runtime`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
      expectRuntime(server, await response.json(), null);
    });

    it("refuses to start when asked for an MCP mode it does not have", async () => {
      for (const env of [{ MCP_STATELESS: "1" }, { MCP_JSON_RESPONSE: "yes" }] as Record<string, string>[]) {
        await expectRefusedStart(server, `${name}-mcp-env`, env);
      }
    });

    it("exits 0 on a SIGTERM sent the moment its start line is written, five times", async () => {
      for (let i = 0; i < 5; i++) {
        const exit = await signalAtStartLine(server, {});
        expect(exit, `attempt ${i + 1}\n${exit.output}`).toMatchObject({
          code: 0,
          signal: null,
          sawLine: true,
        });
      }
    });

    // Last: it stops the server.
    it("on SIGTERM exits 0 within 5 s", async () => {
      await stop(running);
      running = undefined;
    });
  });
}

/**
 * Stateless mode: every server with MCP_STATELESS=1, and every variant that runs several processes
 * (Node's cluster, Python's workers), whose requests land on different processes and must agree.
 */
/**
 * Stateless variants whose own env sets more than MCP_STATELESS (a worker count): several processes
 * serve them. (The server's start env, e.g. Bun's fetch settings, is in every variant: not counted.)
 */
const multiProcessVariants = withVariants(ordered).filter((v) => {
  const own = v.variant === null ? null : ordered.find((s) => s.base === v.base)?.variants[v.variant]?.env;
  return !!own && v.start.env.MCP_STATELESS === "1" && Object.keys(own).some((k) => k !== "MCP_STATELESS");
});
const statelessTargets = [
  ...ordered.map((server) => ({ server, name: server.name, env: { MCP_STATELESS: "1" }, variant: false })),
  ...multiProcessVariants.map((server) => ({
    server,
    name: server.name,
    env: {} as Record<string, string>,
    variant: true,
  })),
];

for (const { server, name, env, variant } of statelessTargets) {
  describe(`server ${name}, stateless and without backends`, () => {
    const base = server.base;
    let running: RunningServer;
    let baseUrl: string;
    let mcpUrl: string;
    let port: number;
    let client: Client;
    let transport: StreamableHTTPClientTransport;

    beforeAll(async () => {
      // No REDIS_URL, FIXTURE_API_URL or DATABASE_URL: backends are connected lazily (section 1).
      ({ running, baseUrl, port } = await start(server, `${name.replace(":", "~")}-stateless`, env));
      mcpUrl = `${baseUrl}${server.mcpPath}`;
    });

    afterAll(async () => {
      await client?.close().catch(() => undefined);
      await stop(running);
    });

    it("initializes through the SDK without a session id", async () => {
      client = new Client({ name: "perflab-conformance", version: "1.0.0" });
      transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: `perflab-${base}`, version: "1.0.0" });
      expect(transport.sessionId).toBeUndefined();
      const init = await post(mcpUrl, initialize(1, "2025-11-25"));
      expect(init.status).toBe(200);
      expect(init.contentType).toMatch(/^text\/event-stream\b/);
      expect(init.sessionId, "no Mcp-Session-Id when stateless").toBeNull();
      expect(init.message?.result?.protocolVersion).toBe("2025-11-25");
    });

    it("answers tools/list and tools/call without initialize, with Host 127.0.0.1 or localhost", async () => {
      const headers = { "mcp-protocol-version": "2025-11-25" };
      const list = await post(mcpUrl, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
      expect(list.status).toBe(200);
      const names = (list.message?.result?.tools ?? []).map((t: { name: string }) => t.name).sort();
      expect(names).toEqual([...server.tools].sort());
      const call = await post(
        mcpUrl,
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "fibonacci", arguments: { n: 10 } } },
        headers,
      );
      expect(call.status).toBe(200);
      expect(call.message?.result?.content).toEqual([{ type: "text", text: '{"n":10,"value":55}' }]);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
        const list = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" });
        const answer = await httpPost(mcpUrl, list, { host });
        expect(answer.status, `Host: ${host}`).toBe(200);
      }
    });

    it("refuses a request that names another host, with a foreign Origin or without (DNS rebinding)", async () => {
      await expectRefusesForeignHosts(mcpUrl, port);
    });

    it("returns golden results and sleeps", async () => {
      for (const vectorName of statelessVectors) {
        const vector = vectors.find((v) => v.name === vectorName);
        expect(vector, `vector "${vectorName}" in vectors.json`).toBeDefined();
        if (!server.tools.includes(vector!.tool)) continue;
        const result = await client.callTool({ name: vector!.tool, arguments: vector!.arguments });
        expect(successText(result, vectorName)).toBe(vector!.text);
      }
      if (server.tools.includes("sleep")) {
        const started = performance.now();
        const text = successText(await client.callTool({ name: "sleep", arguments: { ms: 10 } }), "sleep 10");
        expect(performance.now() - started).toBeGreaterThanOrEqual(10);
        expect(text).toBe('{"slept_ms":10}');
      }
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.callTool({ name: "echo", arguments: { message: `c${i}` } }),
        ),
      );
      expect(results.map((r, i) => successText(r, `echo c${i}`))).toEqual(results.map((_, i) => `c${i}`));
    });

    it("fails backend tools with backend_unavailable and stays up", async () => {
      for (const call of backendCalls.filter((c) => server.tools.includes(c.name))) {
        const result = await client.callTool(call);
        expect(result.isError, `${describeCall(call)}: ${textOf(result)}`).toBe(true);
        expect(shapeProblem(result), describeCall(call)).toBeNull();
        expect(textOf(result), describeCall(call)).toMatch(/^backend_unavailable:/);
      }
      const users = await route(`${baseUrl}/rest/users/1`);
      expect(users).toMatchObject({ status: 503, body: '{"error":"database unavailable"}' });
      const time = await route(`${baseUrl}/rest/time`);
      expect(time.status).toBe(200);
      expect((await fetch(`${baseUrl}${server.healthPath}`)).status).toBe(200);
    });

    it("accepts request bodies up to 8 MiB (a 1 MiB echo of control characters) and answers 413 above", async () => {
      // Every byte of this message is JSON-escaped as \u0001: the worst case of section 2, 6 MiB.
      const message = "\u0001".repeat(MIB);
      const call = (id: number) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: { message } },
      });
      const headers = { "mcp-protocol-version": "2025-11-25" };
      const escaped = JSON.stringify(call(1));
      expect(Buffer.byteLength(escaped)).toBeGreaterThan(6 * MIB);
      // JSON allows whitespace after the message: pad to exactly the limit, then one byte more.
      const limit = 8 * MIB;
      const atLimit = await httpPost(mcpUrl, escaped.padEnd(limit, " "), headers);
      expect(atLimit.status, "a body of exactly 8 MiB").toBe(200);
      const content = (parseMessage("text/event-stream", atLimit.body) as { result?: { content?: unknown } })
        ?.result?.content;
      expect(content, "echo of 1 MiB of U+0001").toEqual([{ type: "text", text: message }]);
      const tooLarge = await httpPost(mcpUrl, JSON.stringify(call(2)).padEnd(limit + 1, " "), headers);
      // 413, or (section 2 allows it) the connection closed before the client read the 413.
      expect(tooLarge.reset ? "reset" : tooLarge.status, "a body of 8 MiB + 1 byte").toSatisfy(
        (outcome: unknown) => outcome === 413 || outcome === "reset",
      );
      expect((await fetch(`${baseUrl}${server.healthPath}`)).status).toBe(200);
    });

    it("refuses to start with an MCP_STATELESS or MCP_JSON_RESPONSE value the contract does not allow", async () => {
      for (const env of [{ MCP_STATELESS: "true" }, { MCP_JSON_RESPONSE: "yes" }] as Record<
        string,
        string
      >[]) {
        await expectRefusedStart(server, `${name.replace(":", "~")}-bad-env`, env);
      }
    });

    it("exits 0 on a SIGTERM sent the moment its start line is written, five times", async () => {
      for (let i = 0; i < 5; i++) {
        const exit = await signalAtStartLine(server, env);
        expect(exit, `attempt ${i + 1}\n${exit.output}`).toMatchObject({
          code: 0,
          signal: null,
          sawLine: true,
        });
      }
    });

    // Every server can answer JSON when stateless (rmcp and the Java SDK only then): section 2's
    // MCP_JSON_RESPONSE=1; stateful JSON is checked below.
    if (!variant) {
      it.runIf(server.tools.includes("fibonacci"))(
        "with MCP_JSON_RESPONSE=1 answers a tools/call POST with application/json, not SSE",
        async () => {
          const json = await start(server, `${name}-json`, { MCP_STATELESS: "1", MCP_JSON_RESPONSE: "1" });
          try {
            const url = `${json.baseUrl}${server.mcpPath}`;
            const headers = { "mcp-protocol-version": "2025-11-25" };
            const call = await post(
              url,
              {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "fibonacci", arguments: { n: 10 } },
              },
              headers,
            );
            expect(call.status, call.body.slice(0, 300)).toBe(200);
            expect(call.contentType, "Content-Type with MCP_JSON_RESPONSE=1").toMatch(/^application\/json\b/);
            expect(JSON.parse(call.body)?.result?.content).toEqual([
              { type: "text", text: '{"n":10,"value":55}' },
            ]);
            const runtime = await (await fetch(`${json.baseUrl}/debug/runtime`)).json();
            expect(runtime.mcp, "mcp in /debug/runtime").toEqual({
              stateless: true,
              json_response: true,
              sessions: null,
            });
          } finally {
            await stop(json.running);
          }
        },
      );
    }

    /** A tools/call whose arguments are sent as written (JSON.stringify would turn 10.0 into 10). */
    async function rawCall(tool: string, argumentsJson: string) {
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsJson}}}`;
      const answer = await httpPost(mcpUrl, body, { "mcp-protocol-version": "2025-11-25" });
      // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC message as parsed
      return { ...answer, message: parseMessage(answer.contentType, answer.body) as any };
    }

    it("takes a whole-number float as an integer (10.0 as 10) and rejects a fraction, staying up", async () => {
      // Section 3: JSON Schema's integer is any number with a zero fractional part.
      const whole: [string, string, string][] = [
        ["fibonacci", '{"n":10.0}', '{"n":10}'],
        ["fibonacci", '{"n":1e1}', '{"n":10}'],
        ["echo", '{"message":"hi","pad_to_bytes":4.0}', '{"message":"hi","pad_to_bytes":4}'],
        ["transform_data", '{"size":10.0}', '{"size":10}'],
        ["sleep", '{"ms":1.0}', '{"ms":1}'],
      ];
      for (const [tool, asFloat, asInteger] of whole.filter(([tool]) => server.tools.includes(tool))) {
        const [float, integer] = [await rawCall(tool, asFloat), await rawCall(tool, asInteger)];
        const what = `${tool} ${asFloat}`;
        expect(integer.message?.result?.isError ?? false, `${tool} ${asInteger}: ${integer.body}`).toBe(
          false,
        );
        expect(float.status, what).toBe(200);
        expect(float.message?.result?.isError ?? false, `${what}: ${float.body.slice(0, 300)}`).toBe(false);
        expect(float.message?.result?.content, what).toEqual(integer.message?.result?.content);
      }
      const fractions: [string, string][] = [
        ["fibonacci", '{"n":10.5}'],
        ["fibonacci", '{"n":35.0000001}'],
        ["echo", '{"message":"hi","pad_to_bytes":2.5}'],
        ["transform_data", '{"size":1.5}'],
        ["sleep", '{"ms":0.5}'],
      ];
      for (const [tool, args] of fractions.filter(([tool]) => server.tools.includes(tool))) {
        const { status, message, body } = await rawCall(tool, args);
        const rejected = message?.result?.isError === true || message?.error?.code === -32602;
        expect(rejected, `${tool} ${args}: HTTP ${status} ${body.slice(0, 300)}`).toBe(true);
      }
      expect((await fetch(`${baseUrl}${server.healthPath}`)).status).toBe(200);
      const after = await rawCall("fibonacci", '{"n":10}');
      expect(after.message?.result?.content).toEqual([{ type: "text", text: '{"n":10,"value":55}' }]);
    });

    it("answers an echo of a lone surrogate (invalid UTF-16) in one of the ways section 3 allows, and stays up", async () => {
      const { status, message, body } = await rawCall("echo", '{"message":"a\\ud800b"}');
      const what = `HTTP ${status} ${body.slice(0, 300)}`;
      if (status === 200 && message?.result) {
        // Accepted: the surrogate kept, replaced by U+FFFD, or by "?" (Java's UTF-8 encoder).
        expect(message.result.isError ?? false, what).toBe(false);
        expect(["a\ud800b", "a\ufffdb", "a?b"], what).toContain(textOf(message.result));
      } else {
        // Refused: a JSON-RPC error, or a 4xx answer to a body that is not valid JSON text.
        const refused = (status === 200 && message?.error !== undefined) || (status >= 400 && status < 500);
        expect(refused, what).toBe(true);
      }
      expect((await fetch(`${baseUrl}${server.healthPath}`)).status).toBe(200);
      const after = await rawCall("echo", '{"message":"still up"}');
      expect(after.message?.result?.content).toEqual([{ type: "text", text: "still up" }]);
    });

    it("answers GET and DELETE /mcp with 405", async () => {
      const get = await fetch(mcpUrl, { headers: { accept: "text/event-stream" } });
      await get.body?.cancel();
      expect(get.status).toBe(405);
      const del = await fetch(mcpUrl, { method: "DELETE" });
      await del.body?.cancel();
      expect(del.status).toBe(405);
    });

    it("reports stateless mode in /debug/runtime", async () => {
      const body = await (await fetch(`${baseUrl}/debug/runtime`)).json();
      expectRuntime(server, body, { stateless: true, json_response: false, sessions: null });
    });
  });
}

/** An answer on a pinned connection, with the pid of the process that gave it (undefined if unknown). */
type PinnedAnswer = { status: number; contentType: string; body: string; pid: number | undefined };

/**
 * One keep-alive HTTP connection (a node:http agent with a single socket) and the pid of the process
 * behind it. A multi-process server hands each connection to one process (Node's cluster primary
 * passes it to a worker; a uvicorn worker accepts it from the shared socket), so every answer on the
 * connection comes from the process its /debug/runtime names. Should the server close the connection,
 * the agent opens another, maybe on another process: its pid is then asked again.
 */
class PinnedConnection {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private socket: object | undefined;
  pid: number | undefined;

  constructor(private readonly baseUrl: string) {}

  private request(method: string, pathname: string, body?: string, headers: Record<string, string> = {}) {
    return new Promise<Omit<PinnedAnswer, "pid"> & { socket: object }>((resolve, reject) => {
      const request = http.request(
        `${this.baseUrl}${pathname}`,
        {
          method,
          agent: this.agent,
          headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          const socket = response.socket;
          let text = "";
          response.setEncoding("utf8").on("data", (chunk: string) => {
            text += chunk;
          });
          response.on("error", reject).on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              contentType: response.headers["content-type"] ?? "",
              body: text,
              socket,
            }),
          );
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }

  /** The pid of the process behind the connection, from its /debug/runtime. */
  async whoAnswers(): Promise<number> {
    const info = await this.request("GET", "/debug/runtime");
    expect(info.status, `/debug/runtime: ${info.body.slice(0, 200)}`).toBe(200);
    this.socket = info.socket;
    this.pid = (JSON.parse(info.body) as { pid: number }).pid;
    return this.pid;
  }

  async send(method: string, pathname: string, body?: string, headers?: Record<string, string>) {
    const { socket, ...answer } = await this.request(method, pathname, body, headers);
    if (socket !== this.socket) await this.whoAnswers();
    return { ...answer, pid: socket === this.socket ? this.pid : undefined } satisfies PinnedAnswer;
  }

  close() {
    this.agent.destroy();
  }
}

/** A stateless tools/call (no initialize, section 2) on a pinned connection: its TEXT and who answered. */
async function pinnedToolCall(connection: PinnedConnection, mcpPath: string, call: Call, id: number) {
  const answer = await connection.send(
    "POST",
    mcpPath,
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: call }),
    { ...mcpHeaders, "mcp-protocol-version": "2025-11-25" },
  );
  const message = parseMessage(answer.contentType, answer.body) as { result?: unknown } | undefined;
  expect(
    answer.status === 200 && message?.result !== undefined,
    `${describeCall(call)}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`,
  ).toBe(true);
  return { text: successText(message!.result, describeCall(call)), pid: answer.pid };
}

/**
 * The multi-process variants with the fixtures' backends. Each process opens its own Redis, fixture
 * API and Postgres connections, so every I/O tool must return Go's results whichever process answers,
 * and concurrent writes on several processes must add up. Calls go at once over keep-alive connections
 * pinned to known processes (two per process, alternating), so every process answers its share of
 * each tool and the test knows which answered.
 */
for (const server of multiProcessVariants) {
  const name = server.name;

  describe(`server ${name}, several processes with backends`, () => {
    let running: RunningServer;
    let baseUrl: string;
    let parallelism = 0;
    /** Connection k is pinned to process k mod parallelism. */
    let connections: PinnedConnection[] = [];
    let next = 0;
    /** Calls of one tool sent at once: 4 per process. */
    const fanOut = () => 4 * parallelism;

    beforeAll(async () => {
      await fixtures.reset();
      // Two processes whatever the machine's CPU count (the manifest's "auto" is one per CPU).
      const twoProcesses = Object.fromEntries(
        Object.entries(server.start.env)
          .filter(([, value]) => value === "auto")
          .map(([key]) => [key, "2"]),
      );
      ({ running, baseUrl } = await start(server, `${name.replace(":", "~")}-backends`, {
        ...backends,
        ...twoProcesses,
      }));
    });

    afterAll(async () => {
      for (const connection of connections) connection.close();
      await stop(running);
    });

    /** Sends every item at once, each on the next connection in turn (so processes alternate). */
    function spread<T, R>(
      items: T[],
      send: (connection: PinnedConnection, item: T, j: number) => Promise<R>,
    ) {
      expect(connections.length, "connections to every process (opened by the first test)").toBeGreaterThan(
        0,
      );
      const first = next;
      next += items.length;
      return Promise.all(
        items.map((item, j) => send(connections[(first + j) % connections.length]!, item, j)),
      );
    }
    const callAll = (calls: Call[]) =>
      spread(calls, (connection, call, j) => pinnedToolCall(connection, server.mcpPath, call, j + 1));

    /** Every process answered some of these calls (as many as there are calls, if fewer). */
    function expectSeveralProcesses(what: string, pids: (number | undefined)[]) {
      const answered = new Set(pids.filter((pid) => pid !== undefined));
      expect(answered.size, `${what}: processes that answered (pids ${[...answered].join(", ")})`).toBe(
        Math.min(pids.length, parallelism),
      );
    }

    it("runs one process per CPU of its limit, each reached on connections of its own", async () => {
      const info = await (await fetch(`${baseUrl}/debug/runtime`)).json();
      expectRuntime(server, info, { stateless: true, json_response: false, sessions: null });
      parallelism = info.parallelism;
      expect(parallelism, "parallelism (section 1: processes serving requests), started with 2").toBe(2);
      const byPid = new Map<number, PinnedConnection[]>();
      const full = () => byPid.size >= parallelism && [...byPid.values()].every((list) => list.length >= 2);
      // Connections go to processes as the server decides: open a few at a time until every process
      // holds two (bounded: at most 100). Uvicorn's workers share one listening socket and an idle
      // worker that wakes first accepts every pending connection, so one worker may get them all; a
      // process busy computing accepts none, so those that hold two already compute fibonacci calls
      // meanwhile: one on each of their connections, run one after the other (about a second in
      // CPython), so a process starved of CPU by other work still gets the new connections first.
      const fibonacci: Call = { name: "fibonacci", arguments: { n: 31 } };
      for (let round = 0; round < 25 && !full(); round++) {
        const busy = server.tools.includes("fibonacci")
          ? [...byPid.values()]
              .filter((list) => list.length >= 2)
              .flatMap((list) =>
                list.map((connection) => pinnedToolCall(connection, server.mcpPath, fibonacci, 1)),
              )
          : [];
        if (busy.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        const opened = Array.from({ length: 4 }, () => new PinnedConnection(baseUrl));
        const pids = await Promise.all(opened.map((connection) => connection.whoAnswers()));
        await Promise.all(busy);
        for (const [i, connection] of opened.entries()) {
          const list = byPid.get(pids[i]!) ?? [];
          byPid.set(pids[i]!, list);
          if (list.length < 2) list.push(connection);
          else connection.close();
        }
      }
      connections = [0, 1].flatMap((k) => [...byPid.values()].map((list) => list[k]!));
      expect(byPid.size, `processes answering /debug/runtime: pids ${[...byPid.keys()].join(", ")}`).toBe(
        parallelism,
      );
      expect(full(), "two connections to every process").toBe(true);
    });

    it("returns the fixtures' I/O tool results, the same as Go, with each read sent 4 times per process at once", async () => {
      const checkouts: (number | undefined)[] = [];
      for (const [i, call] of ioCalls.entries()) {
        if (!server.tools.includes(call.name)) continue;
        const key = `io ${i}: ${describeCall(call)}`;
        // A checkout writes (order number, history, popularity): once, as Go did, on the next process.
        const copies = call.name === "checkout" ? 1 : fanOut();
        const answers = await callAll(Array.from({ length: copies }, () => call));
        for (const { text } of answers) {
          expect(text, `${key}: the contract's result on the fixtures`).toBe(expectedIo[i]);
          sameAsReference(name, key, text);
        }
        if (call.name === "checkout") checkouts.push(answers[0]!.pid);
        else
          expectSeveralProcesses(
            key,
            answers.map((a) => a.pid),
          );
      }
      if (checkouts.length > 1) expectSeveralProcesses("checkout", checkouts);
    });

    it.runIf(["checkout", "get_user_cart", "search_products"].every((tool) => server.tools.includes(tool)))(
      "numbers concurrent checkouts on every process once each, and every process reads their writes",
      async () => {
        // The fixtures as the previous test left them: the model after ioCalls.
        const model = fixtureModel();
        for (const call of ioCalls) model.result(call);
        const firstOrder = ioCalls.filter((call) => call.name === "checkout").length + 1;
        const count = fanOut();
        // A user each (a user's history keeps the order of its own checkouts); all add to product
        // 6344, among the 5 most popular since the previous test, so search shows their sum.
        const checkouts: Call[] = Array.from({ length: count }, (_, j) => ({
          name: "checkout",
          arguments: {
            user_id: 100 + j,
            items: [
              { product_id: 6344, quantity: 1 + (j % 3) },
              { product_id: 200 + j, quantity: 1 },
            ],
          },
        }));
        const answers = await callAll(checkouts);
        expectSeveralProcesses(
          "concurrent checkouts",
          answers.map((a) => a.pid),
        );
        const numbered = answers.map(({ text }, j) => ({
          call: checkouts[j]!,
          text,
          order: (JSON.parse(text) as { order_number: number }).order_number,
        }));
        expect(
          numbered.map((n) => n.order).sort((a, b) => a - b),
          "order numbers: one each, from the fixtures' shared counter",
        ).toEqual(Array.from({ length: count }, (_, j) => firstOrder + j));
        // The model numbers them in the order the counter did; the rest of each result is fixed.
        for (const { call, text } of numbered.sort((a, b) => a.order - b.order)) {
          expect(text, describeCall(call)).toBe(model.result(call));
        }

        const carts: Call[] = checkouts.map((call) => ({
          name: "get_user_cart",
          arguments: { user_id: call.arguments.user_id },
        }));
        const searches: Call[] = Array.from({ length: count }, () => ({
          name: "search_products",
          arguments: { query: "lamp", limit: 2 },
        }));
        const reads = [...carts, ...searches];
        const readAnswers = await callAll(reads);
        for (const [j, { text }] of readAnswers.entries()) {
          expect(text, describeCall(reads[j]!)).toBe(model.result(reads[j]!));
        }
        expectSeveralProcesses(
          "get_user_cart after the checkouts",
          readAnswers.slice(0, count).map((a) => a.pid),
        );
        expectSeveralProcesses(
          "search_products after the checkouts",
          readAnswers.slice(count).map((a) => a.pid),
        );
      },
    );

    it("answers distinct get_user, fetch_upstream and /rest/users/:id calls at once, each with its own result", async () => {
      const model = fixtureModel();
      const count = fanOut();
      const calls: Call[] = [
        ...Array.from({ length: count }, (_, j) => ({ name: "get_user", arguments: { id: 1 + j * 997 } })),
        ...Array.from({ length: count }, (_, j) => ({ name: "fetch_upstream", arguments: { delay_ms: j } })),
      ].filter((call) => server.tools.includes(call.name));
      const answers = await callAll(calls);
      for (const [j, { text }] of answers.entries()) {
        expect(text, describeCall(calls[j]!)).toBe(model.result(calls[j]!));
      }
      for (const tool of new Set(calls.map((call) => call.name))) {
        expectSeveralProcesses(
          tool,
          answers.filter((_, j) => calls[j]!.name === tool).map((a) => a.pid),
        );
      }

      // Row 42 as Go returns it, other rows as get_user does, and a missing one, on every process.
      const ids = Array.from({ length: count }, (_, j) => (j % 2 === 0 ? 42 : 2 + j * 1013));
      const rows = await spread([...ids, 100_001], (connection, id) =>
        connection.send("GET", `/rest/users/${id}`),
      );
      for (const [j, row] of rows.entries()) {
        const id = j < ids.length ? ids[j]! : 100_001;
        const what = `GET /rest/users/${id}`;
        expect(row.contentType, what).toMatch(/^application\/json\b/);
        if (id === 100_001) {
          expect(row, what).toMatchObject({ status: 404, body: '{"error":"not found"}' });
          continue;
        }
        expect(row, what).toMatchObject({
          status: 200,
          body: model.result({ name: "get_user", arguments: { id } }),
        });
        if (id === 42) {
          expect(row.body).toBe(user42);
          sameAsReference(name, "GET /rest/users/42", row.body);
        }
      }
      expectSeveralProcesses(
        "GET /rest/users/:id",
        rows.map((row) => row.pid),
      );
    });
  });
}

/**
 * Section 2: MCP_JSON_RESPONSE=1 in the default, stateful mode. A server whose SDK answers a session's
 * POSTs with JSON must do so: application/json answers with an Mcp-Session-Id, the GET stream, DELETE,
 * and Go's I/O results through the SDK client. rmcp and the Java SDK answer JSON only when stateless,
 * so their servers must refuse to start instead (section 2's rule for an SDK that cannot).
 */
const statelessOnlyJsonSdks = [
  "rmcp",
  "io.modelcontextprotocol.sdk:mcp",
  // Spring AI's Streamable HTTP transports are the Java SDK's, JSON only in its stateless one.
  "org.springframework.ai:spring-ai-starter-mcp-server-webmvc",
  "org.springframework.ai:spring-ai-starter-mcp-server-webflux",
];

for (const server of ordered) {
  const name = server.name;

  if (statelessOnlyJsonSdks.includes(server.sdk.name)) {
    describe(`server ${name}, stateful with JSON responses`, () => {
      it(`refuses to start with MCP_JSON_RESPONSE=1 without MCP_STATELESS=1 (${server.sdk.name} answers JSON only when stateless)`, async () => {
        await expectRefusedStart(server, `${name}-stateful-json`, { MCP_JSON_RESPONSE: "1" });
      });
    });
    continue;
  }

  describe(`server ${name}, stateful with JSON responses`, () => {
    let running: RunningServer;
    let baseUrl: string;
    let mcpUrl: string;

    beforeAll(async () => {
      await fixtures.reset();
      ({ running, baseUrl } = await start(server, `${name}-stateful-json`, {
        ...backends,
        MCP_JSON_RESPONSE: "1",
      }));
      mcpUrl = `${baseUrl}${server.mcpPath}`;
    });

    afterAll(async () => {
      await stop(running);
    });

    /** Waits up to 5 s for `mcp.sessions` of /debug/runtime to reach `expected`. */
    async function expectOpenSessions(expected: number, what: string) {
      const sessions = async () =>
        ((await (await fetch(`${baseUrl}/debug/runtime`)).json()) as { mcp: { sessions: unknown } }).mcp
          .sessions;
      const deadline = performance.now() + 5_000;
      let seen = await sessions();
      while (seen !== expected && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await sessions();
      }
      expect(seen, `mcp.sessions ${what}`).toBe(expected);
    }

    it("answers a session's POSTs with application/json, opens the GET stream and ends the session with DELETE", async () => {
      const init = await post(mcpUrl, initialize(1, "2025-11-25"));
      expect(init.status, init.body.slice(0, 300)).toBe(200);
      expect(init.contentType, "initialize answered with MCP_JSON_RESPONSE=1").toMatch(
        /^application\/json\b/,
      );
      expect(JSON.parse(init.body)?.result?.protocolVersion).toBe("2025-11-25");
      expect(init.sessionId, "an Mcp-Session-Id: stateful mode").toBeTruthy();
      const headers = { "mcp-session-id": init.sessionId!, "mcp-protocol-version": "2025-11-25" };
      const notified = await post(mcpUrl, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      expect(notified.status, "a POST of notifications only is answered 202").toBe(202);
      expect(notified.body).toBe("");

      const call = await post(
        mcpUrl,
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { message: "json" } },
        },
        headers,
      );
      expect(call.status, call.body.slice(0, 300)).toBe(200);
      expect(call.contentType, "tools/call answered with MCP_JSON_RESPONSE=1").toMatch(
        /^application\/json\b/,
      );
      expect(JSON.parse(call.body)?.result?.content).toEqual([{ type: "text", text: "json" }]);
      expectRuntime(server, await (await fetch(`${baseUrl}/debug/runtime`)).json(), {
        stateless: false,
        json_response: true,
        sessions: 1,
      });

      await expectEventStreamOpens(mcpUrl, headers);

      const del = await fetch(mcpUrl, { method: "DELETE", headers });
      await del.body?.cancel();
      expect([200, 204]).toContain(del.status);
      const after = await post(mcpUrl, { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
      expect(after.status, "a deleted session is 404").toBe(404);
      await expectOpenSessions(0, "after DELETE");
    });

    it("returns the fixtures' I/O tool results through the SDK client, the same as Go", async () => {
      const client = new Client({ name: "perflab-conformance", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
      await client.connect(transport);
      try {
        expect(transport.sessionId, "an Mcp-Session-Id: stateful mode").toBeTruthy();
        for (const [i, call] of ioCalls.entries()) {
          if (!server.tools.includes(call.name)) continue;
          const text = successText(await client.callTool(call), describeCall(call));
          expect(text, `${describeCall(call)}: the contract's result on the fixtures`).toBe(expectedIo[i]);
          sameAsReference(name, `io ${i}: ${describeCall(call)}`, text);
        }
        await transport.terminateSession();
      } finally {
        await client.close();
      }
      await expectOpenSessions(0, "after the SDK client's DELETE");
    });
  });
}

/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05) of a server whose manifest turns it on with
 * MCP_LEGACY_SSE=1 (Express's `legacy-sse` variant, as study 000 ran the TypeScript SDK): the SDK's
 * SSEClientTransport opens GET /sse, posts to the endpoint its first event names and reads every answer
 * from the stream. The answers are the Streamable HTTP ones; a session lives as long as its stream.
 */
const legacySseServers = withVariants(ordered).filter((s) => s.start.env.MCP_LEGACY_SSE === "1");

/** Opens a GET /sse stream and reads its first event (the `endpoint`); the stream stays open until `close`. */
async function openSseStream(sseUrl: string) {
  const abort = new AbortController();
  const stream = await fetch(sseUrl, { headers: { accept: "text/event-stream" }, signal: abort.signal });
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  // SSE lines may end in CRLF (mcp-go writes them so), LF or CR; an empty line ends the event.
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text = (text + value).replace(/\r\n?/g, "\n");
  }
  return {
    status: stream.status,
    contentType: stream.headers.get("content-type") ?? "",
    event: /^event: ?(.*)$/m.exec(text)?.[1],
    data: /^data: ?(.*)$/m.exec(text)?.[1],
    close: () => abort.abort(),
  };
}

for (const server of legacySseServers) {
  describe(`server ${server.name}, legacy HTTP+SSE transport at GET /sse`, () => {
    let running: RunningServer | undefined;
    let baseUrl: string;
    const sseClient = async () => {
      const client = new Client({ name: "perflab-conformance", version: "1.0.0" });
      await client.connect(new SSEClientTransport(new URL(`${baseUrl}/sse`)));
      return client;
    };
    const sessions = async () =>
      ((await (await fetch(`${baseUrl}/debug/runtime`)).json()) as { mcp: { sessions: number } }).mcp
        .sessions;

    beforeAll(async () => {
      await fixtures.reset();
      ({ running, baseUrl } = await start(server, `${server.name.replace(":", "~")}-sse`, backends));
    });
    afterAll(() => stop(running));

    it("initializes, lists the tools and returns golden and I/O results over the stream, as Go does", async () => {
      const client = await sseClient();
      try {
        expect(client.getServerVersion()).toMatchObject({ name: `perflab-${server.base}`, version: "1.0.0" });
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...server.tools].sort());
        for (const vectorName of statelessVectors) {
          const vector = vectors.find((v) => v.name === vectorName)!;
          const result = await client.callTool({ name: vector.tool, arguments: vector.arguments });
          expect(successText(result, vectorName), vectorName).toBe(vector.text);
        }
        // Right after the fixture reset, in order: checkout's writes show in the later reads.
        for (const [i, call] of ioCalls.entries()) {
          const text = successText(await client.callTool(call), describeCall(call));
          expect(text, `${describeCall(call)}: the contract's result on the fixtures`).toBe(expectedIo[i]);
        }
        const bad = { name: "fibonacci", arguments: { n: 36 } };
        expect(await notRejected(client, bad), describeCall(bad)).toBe("");
      } finally {
        await client.close();
      }
    });

    it("names its POST endpoint in the stream's first event and counts each stream as a session until it closes", async () => {
      await expect.poll(sessions, { timeout: 5_000 }).toBe(0);
      const first = await openSseStream(`${baseUrl}/sse`);
      expect(first).toMatchObject({ status: 200, event: "endpoint" });
      expect(first.contentType).toMatch(/^text\/event-stream\b/);
      expect(first.data, "the endpoint carries the session id").toMatch(/[?&]sessionId=/);
      const clients = await Promise.all([sseClient(), sseClient(), sseClient()]);
      expect(await sessions(), "four open streams").toBe(4);
      first.close();
      await Promise.all(clients.map((c) => c.close()));
      await expect.poll(sessions, { timeout: 5_000 }).toBe(0);
      const ended = await post(new URL(first.data!, baseUrl).href, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
      });
      expect(ended.status, "a POST for a session whose stream closed").toBeGreaterThanOrEqual(400);
    });

    it("exits 0 within 5 s on SIGTERM while a stream is open", async () => {
      const stream = await openSseStream(`${baseUrl}/sse`);
      expect(stream.event).toBe("endpoint");
      try {
        await stop(running);
      } finally {
        running = undefined;
        stream.close();
      }
    });
  });
}

/** One RESP command from the front of `buffer` (an array of bulk strings, or an inline line), or null. */
function parseRespCommand(buffer: Buffer): { args: string[]; length: number } | null {
  let pos = 0;
  const line = () => {
    const end = buffer.indexOf("\r\n", pos);
    if (end < 0) return null;
    const text = buffer.toString("latin1", pos, end);
    pos = end + 2;
    return text;
  };
  const head = line();
  if (head === null) return null;
  if (!head.startsWith("*")) return { args: head.split(" "), length: pos };
  const args: string[] = [];
  for (let i = 0; i < Number(head.slice(1)); i++) {
    const size = line();
    if (size === null) return null;
    const length = Number(size.slice(1));
    if (buffer.length < pos + length + 2) return null;
    args.push(buffer.toString("utf8", pos, pos + length));
    pos += length + 2;
  }
  return { args, length: pos };
}

/** What a Redis 7 answers while a client connects, in the protocol HELLO asks for; null for a data command. */
function handshakeReply(args: string[]): string | null {
  switch (args[0]?.toUpperCase()) {
    case "HELLO": {
      const resp3 = args[1] === "3";
      const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
      const fields = [
        bulk("server") + bulk("redis"),
        bulk("version") + bulk("7.2.0"),
        `${bulk("proto")}:${resp3 ? 3 : 2}\r\n`,
        `${bulk("id")}:1\r\n`,
        bulk("mode") + bulk("standalone"),
        bulk("role") + bulk("master"),
        `${bulk("modules")}*0\r\n`,
      ];
      return `${resp3 ? `%${fields.length}` : `*${fields.length * 2}`}\r\n${fields.join("")}`;
    }
    case "CLIENT":
    case "SELECT":
    case "AUTH":
      return "+OK\r\n";
    case "PING":
      return "+PONG\r\n";
    case "INFO": {
      const info = "# Server\r\nredis_version:7.2.0\r\nloading:0\r\n";
      return `$${Buffer.byteLength(info)}\r\n${info}\r\n`;
    }
    default:
      return null;
  }
}

/**
 * Section 6's budgets when a backend stalls, with two Redis stand-ins: one that accepts connections
 * and never answers, and one that answers what a client sends while it connects but never a command
 * (a Redis stuck mid-command). get_user_cart's two Redis commands (its fixture API call is answered)
 * fail as backend_unavailable within the command timeout, and are not sent again: go-redis retries a
 * timed-out command 3 times by default, on a new connection each time, and Jedis negotiated its
 * protocol on a connection of its own first, each 5 s more. The servers run at once, so each case
 * takes as long as its slowest.
 */
describe.each([
  { redis: "never answers", handshake: false },
  { redis: "answers the handshake but never a command", handshake: true },
])("every server, with a Redis that $redis", ({ handshake }) => {
  const sockets = new Set<net.Socket>();
  const fake = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined).on("close", () => sockets.delete(socket));
    if (!handshake) return;
    let buffer = Buffer.alloc(0);
    let stalled = false;
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      // Replies go in order: once a command is left unanswered, nothing after it is answered.
      while (!stalled) {
        const command = parseRespCommand(buffer);
        if (!command) return;
        buffer = buffer.subarray(command.length);
        const reply = handshakeReply(command.args);
        if (reply === null) stalled = true;
        else socket.write(reply);
      }
    });
  });
  /** The contract's 5 s command timeout, plus what a loaded machine adds. */
  const BUDGET_MS = 9_000;

  beforeAll(async () => {
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => fake.close(resolve));
  });

  it(`fails get_user_cart with backend_unavailable within ${BUDGET_MS / 1000} s, without retries`, async () => {
    const redisUrl = `redis://127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    const outcomes = await Promise.all(
      ordered.map(async (server) => {
        const { running, baseUrl } = await start(server, `${server.name}-stalled-redis`, {
          ...backends,
          REDIS_URL: redisUrl,
        });
        const client = new Client({ name: "perflab-conformance", version: "1.0.0" });
        try {
          await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${server.mcpPath}`)));
          const started = performance.now();
          const result = await client.callTool(
            { name: "get_user_cart", arguments: { user_id: 1 } },
            undefined,
            { timeout: 60_000 },
          );
          return { server: server.name, ms: performance.now() - started, result };
        } finally {
          await client.close().catch(() => undefined);
          await stop(running);
        }
      }),
    );
    for (const { server, ms, result } of outcomes) {
      const what = `${server}: ${textOf(result)} after ${Math.round(ms)} ms`;
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toMatch(/^backend_unavailable:/);
      expect(ms, what).toBeLessThan(BUDGET_MS);
    }
  }, 120_000);
});

/** SDKs add `$schema`, `additionalProperties` and the like; the contract compares the rest. */
function stripSdkExtras(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripSdkExtras);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$schema" || k === "additionalProperties" || k === "title") continue;
    out[k] = stripSdkExtras(v);
  }
  return out;
}
