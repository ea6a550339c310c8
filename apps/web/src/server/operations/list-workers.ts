import {
  type TWorkerPresence,
  WORKER_PRESENCE_INDEX,
  WORKER_PRESENCE_PREFIX,
  ZWorkerPresence,
} from "@perflab/contracts";
import { Redis } from "ioredis";
import { env } from "../../env";
import { AppError } from "../errors";

const globalForWorkers = globalThis as unknown as { perflabPresenceRedis?: Redis };

function presenceConnection(): Redis {
  if (!globalForWorkers.perflabPresenceRedis) {
    // As the producer connection (fail fast, no offline queue), and no command waits past 3 s on a
    // connection that went quiet.
    const redis = new Redis(env.REDIS_URL, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 3_000,
      commandTimeout: 3_000,
    });
    // Without a listener an unreachable Redis becomes an unhandled 'error' event.
    redis.on("error", (error) => console.error("[workers]", error.message));
    globalForWorkers.perflabPresenceRedis = redis;
  }
  return globalForWorkers.perflabPresenceRedis;
}

/** The connection answers within `ms`, or the error says Redis did not. */
async function ready(redis: Redis, ms: number): Promise<void> {
  if (redis.status === "ready") return;
  if (redis.status === "wait" || redis.status === "end") redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`Redis did not answer within ${ms} ms`));
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}

/**
 * The workers that announced themselves within the last WORKER_PRESENCE_TTL_MS (see the worker's
 * presence.ts), by host then id, read through their index set (no scan of the keyspace). A key that
 * does not parse (another version's) is left out.
 */
export async function listWorkers(
  redis: Redis = presenceConnection(),
  timeoutMs = 3_000,
): Promise<TWorkerPresence[]> {
  try {
    await ready(redis, timeoutMs);
    const ids = await redis.smembers(WORKER_PRESENCE_INDEX);
    if (ids.length === 0) return [];
    const values = await redis.mget(...ids.map((id) => `${WORKER_PRESENCE_PREFIX}${id}`));
    // Workers killed without a word: their keys lapsed, so their ids leave the index.
    const lapsed = ids.filter((_, i) => values[i] === null);
    if (lapsed.length > 0) await redis.srem(WORKER_PRESENCE_INDEX, ...lapsed);
    return values
      .flatMap((value) => {
        if (value === null) return [];
        try {
          const parsed = ZWorkerPresence.safeParse(JSON.parse(value));
          return parsed.success ? [parsed.data] : [];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.hostId.localeCompare(b.hostId) || a.id.localeCompare(b.id));
  } catch (error) {
    throw new AppError(
      "unavailable",
      `Redis did not answer, so the workers cannot be listed: ${(error as Error).message}`,
    );
  }
}
