import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "../env";
import type { Caller } from "./auth";
import { AppError } from "./errors";
import { PEER_HEADER } from "./http-gate";
import { getCountersConnection } from "./redis";

/** The endpoints that cost, each limited per minute by its setting (env-schema.ts). */
const LIMITS = {
  matrices: { what: "queued matrices", points: () => env.PERFLAB_RATE_LIMIT_MATRICES },
  uploads: { what: "uploads", points: () => env.PERFLAB_RATE_LIMIT_UPLOADS },
  reports: { what: "created reports", points: () => env.PERFLAB_RATE_LIMIT_REPORTS },
  tokens: { what: "requests to the tokens API", points: () => env.PERFLAB_RATE_LIMIT_TOKENS },
} as const;
export type RateLimitName = keyof typeof LIMITS;

const WINDOW_SECONDS = 60;
/** A live stream's hold expires by itself this long after its first, should a process die holding it. */
const STREAM_HOLD_SECONDS = 3_600;

const globalForLimiters = globalThis as unknown as { perflabLimiters?: Map<string, RateLimiterRedis> };

/** One limiter per name and size, its counters in Redis so every web process shares them. */
function limiter(name: string, points: number, duration: number): RateLimiterRedis {
  globalForLimiters.perflabLimiters ??= new Map();
  const limiters = globalForLimiters.perflabLimiters;
  const id = `${name}:${points}:${duration}`;
  let found = limiters.get(id);
  if (!found) {
    found = new RateLimiterRedis({
      storeClient: getCountersConnection(),
      keyPrefix: `perflab:rl:${name}`,
      points,
      duration,
    });
    limiters.set(id, found);
  }
  return found;
}

const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/;

/**
 * The client's address: the connection's peer (stamped by http-gate.ts), or, when the peer is a
 * proxy on the lab's own machine, the last X-Forwarded-For entry it appended. A remote client
 * cannot choose its address by writing that header.
 */
export function clientAddress(request: Request): string {
  const peer = request.headers.get(PEER_HEADER) || null;
  if (peer && !LOOPBACK.test(peer)) return peer;
  const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  return forwarded || peer || "unknown";
}

/** Whom a limit counts: the token, and the client address, so neither a new token nor a new address resets it. */
function subjectsOf(request: Request, caller: Caller | null) {
  const address = {
    key: `addr:${clientAddress(request)}`,
    field: "(client address)",
    who: "this client address",
  };
  if (!caller) return [address];
  const token = { key: `token:${caller.tokenId}`, field: "authorization", who: `token "${caller.name}"` };
  return [token, address];
}

const tooMany = (field: string, message: string, retrySeconds: number, detail: string) =>
  new AppError("too_many_requests", detail, [{ field, message }], {
    "retry-after": String(Math.max(1, Math.ceil(retrySeconds))),
  });

/** Counts a request against `name`'s limit, for its token and its address: a 429 naming which, once over. */
export async function rateLimit(name: RateLimitName, request: Request, caller: Caller | null): Promise<void> {
  const { what, points } = LIMITS[name];
  const counter = limiter(name, points(), WINDOW_SECONDS);
  for (const subject of subjectsOf(request, caller)) {
    const res = await consume(counter, subject.key);
    if (res) {
      const retry = res.msBeforeNext / 1000;
      throw tooMany(
        subject.field,
        `${name}: at most ${points()} ${what} a minute for ${subject.who}; retry in ${Math.ceil(retry)} s`,
        retry,
        `Too many ${what}: the limit is ${points()} a minute (${name}).`,
      );
    }
  }
}

/**
 * Takes one of the caller's live-stream slots (PERFLAB_LIVE_STREAMS_PER_CLIENT, shared by every web
 * process): a 429 when all are held. The returned function gives it back; call it once, when the stream ends.
 */
export async function holdLiveStream(request: Request, caller: Caller | null): Promise<() => void> {
  const points = env.PERFLAB_LIVE_STREAMS_PER_CLIENT;
  const counter = limiter("live-streams", points, STREAM_HOLD_SECONDS);
  const held: string[] = [];
  const release = () => {
    for (const key of held.splice(0)) counter.reward(key, 1).catch(() => undefined);
  };
  for (const subject of subjectsOf(request, caller)) {
    const res = await consume(counter, subject.key);
    if (res) {
      // A refused open counted as held too: give that back, with the slots taken before it.
      held.push(subject.key);
      release();
      throw tooMany(
        subject.field,
        `live-streams: at most ${points} live streams open at once for ${subject.who}; close one (retry in a few seconds)`,
        5,
        `Too many live streams: the limit is ${points} open at once (live-streams).`,
      );
    }
    held.push(subject.key);
  }
  return release;
}

/** `stream` as it is, calling `release` once when it ends, fails or its reader cancels it. */
export function releasedWhenEnded(
  stream: ReadableStream<Uint8Array>,
  release: () => void,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let held = true;
  const end = () => {
    if (held) release();
    held = false;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}

/**
 * A consumed point, or the limiter's answer when none is left. Redis failing lets the request
 * through: a limit protects the lab, and the request itself says when Redis is needed.
 */
async function consume(counter: RateLimiterRedis, key: string): Promise<RateLimiterRes | null> {
  try {
    await counter.consume(key, 1);
    return null;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    console.warn(`[rate-limit] not counted (${error instanceof Error ? error.message : String(error)})`);
    return null;
  }
}
