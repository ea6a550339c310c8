import { Redis } from "ioredis";
import { env } from "../env";

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

/** A dedicated connection per SSE client: a subscribed connection can run no other command. */
export function createSubscriberConnection(url: string = env.REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectTimeout: 3_000 });
}
