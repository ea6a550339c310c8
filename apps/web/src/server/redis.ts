import { Redis } from "ioredis";
import { env } from "../env";
import { LiveHub } from "./live-hub";

/**
 * Producer connection: a request must fail fast with 503 when Redis is down, not hang while
 * ioredis queues commands and retries forever.
 */
export function createProducerConnection(url: string = env.REDIS_URL): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 3_000,
  });
}

const globalForCounters = globalThis as unknown as { perflabCountersRedis?: Redis };

/**
 * The process's connection for rate-limit counters and idempotency keys. Unlike the producer's it
 * queues commands while it connects (a limit counted right after start-up must not be skipped),
 * and a command gives up after a second rather than holding a request.
 */
export function getCountersConnection(): Redis {
  globalForCounters.perflabCountersRedis ??= new Redis(env.REDIS_URL, {
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
    commandTimeout: 1_000,
  });
  return globalForCounters.perflabCountersRedis;
}

/** A connection for subscribing only (a subscribed connection can run no other command). */
export function createSubscriberConnection(url: string = env.REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectTimeout: 3_000 });
}

const globalForHub = globalThis as unknown as { perflabLiveHub?: LiveHub };

/** The process's one subscription, shared by every run event stream; a new one if it was closed. */
export function getLiveHub(): LiveHub {
  if (!globalForHub.perflabLiveHub || globalForHub.perflabLiveHub.isClosed) {
    globalForHub.perflabLiveHub = new LiveHub(createSubscriberConnection());
  }
  return globalForHub.perflabLiveHub;
}
