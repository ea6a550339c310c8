import { Redis } from "ioredis";
import type pg from "pg";
import { Pool as HttpPool } from "undici";
import { createUserPool } from "./users.js";

/** A tool error whose text starts with one of the contract's codes (section 3). */
export class ToolError extends Error {}

export const backendUnavailable = (what: string, err?: unknown) =>
  new ToolError(`backend_unavailable: ${what}${err instanceof Error ? `: ${err.message}` : ""}`);

export interface UpstreamResponse {
  status: number;
  body: string;
}

type Upstream = (method: "GET" | "POST", path: string, body?: string) => Promise<UpstreamResponse>;

const isBun = "bun" in process.versions;

/**
 * Redis, Postgres and the fixture API, each created on first use so the server starts, and the
 * pure tools work, when none of them is running. There are no defaults: an unset URL is a
 * backend_unavailable tool error.
 */
export class Backends {
  #redis: Redis | undefined;
  #pg: pg.Pool | undefined;
  #upstream: { call: Upstream; close: () => Promise<void> } | undefined;
  #lastLog = 0;

  redis(): Redis {
    if (this.#redis) return this.#redis;
    const url = process.env.REDIS_URL;
    if (!url) throw backendUnavailable("REDIS_URL is not set");
    // One connection with auto-pipelining, ioredis' own high-throughput mode: commands issued in
    // the same tick go out in one write. maxRetriesPerRequest: 0: a command whose connection drops
    // fails at once, not re-sent after a reconnect (CONTRACT.md section 6: no retries).
    this.#redis = new Redis(url, {
      connectTimeout: 2_000,
      commandTimeout: 5_000,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
    });
    this.#redis.on("error", (err) => this.#logRarely(`redis: ${err.message}`));
    return this.#redis;
  }

  pg(): pg.Pool {
    if (this.#pg) return this.#pg;
    const url = process.env.DATABASE_URL;
    if (!url) throw backendUnavailable("DATABASE_URL is not set");
    this.#pg = createUserPool(url);
    this.#pg.on("error", (err) => this.#logRarely(`postgres: ${err.message}`));
    return this.#pg;
  }

  /** Calls the fixture API; network failures are backend_unavailable, non-2xx upstream_error. */
  async api(method: "GET" | "POST", path: string, body?: string): Promise<string> {
    this.#upstream ??= createUpstream();
    let res: UpstreamResponse;
    try {
      res = await this.#upstream.call(method, path, body);
    } catch (err) {
      throw err instanceof ToolError ? err : backendUnavailable("fixture API", err);
    }
    if (res.status < 200 || res.status > 299) {
      throw new ToolError(`upstream_error: fixture API ${method} ${path} answered HTTP ${res.status}`);
    }
    return res.body;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#redis?.quit(), this.#pg?.end(), this.#upstream?.close()]);
  }

  // Backend errors repeat on every reconnect attempt; one line per 10 s is enough.
  #logRarely(message: string) {
    const now = Date.now();
    if (now - this.#lastLog < 10_000) return;
    this.#lastLog = now;
    console.error(message);
  }
}

function createUpstream(): { call: Upstream; close: () => Promise<void> } {
  const base = process.env.FIXTURE_API_URL;
  if (!base) throw backendUnavailable("FIXTURE_API_URL is not set");
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/$/, "");
  const headers = { "content-type": "application/json" };

  if (isBun) {
    // Bun replaces the undici module with a stub. Its native fetch pools keep-alive sockets, but at
    // most 64 idle and 256 in flight per process, with no connect timeout (servers/bun/README.md).
    return {
      call: async (method, path, body) => {
        const res = await fetch(base + path, { method, body, headers, signal: AbortSignal.timeout(15_000) });
        return { status: res.status, body: await res.text() };
      },
      close: async () => {},
    };
  }

  // One pool for every upstream call: unlimited connections, each kept idle for 90 s (the
  // contract keeps every idle connection); header and body timeouts bound a request to 15 s.
  const pool = new HttpPool(url.origin, {
    connections: null,
    keepAliveTimeout: 90_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
    connect: { timeout: 2_000 },
  });
  return {
    call: async (method, path, body) => {
      const res = await pool.request({
        method,
        path: prefix + path,
        body,
        headers: body ? headers : undefined,
      });
      return { status: res.statusCode, body: await res.body.text() };
    },
    close: () => pool.close(),
  };
}
