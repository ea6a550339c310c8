import { type TWorkerPresence, WORKER_PRESENCE_PREFIX, ZWorkerPresence } from "@perflab/contracts";
import type { Redis } from "ioredis";
import { AppError } from "../errors";
import { createProducerConnection } from "../redis";

const globalForWorkers = globalThis as unknown as { perflabPresenceRedis?: Redis };

function presenceConnection(): Redis {
  if (!globalForWorkers.perflabPresenceRedis) {
    const redis = createProducerConnection();
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
 * presence.ts), by host then id. A key that does not parse (another version's) is left out.
 */
export async function listWorkers(
  redis: Redis = presenceConnection(),
  timeoutMs = 3_000,
): Promise<TWorkerPresence[]> {
  try {
    await ready(redis, timeoutMs);
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", `${WORKER_PRESENCE_PREFIX}*`, "COUNT", 200);
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0");
    if (keys.length === 0) return [];
    const values = await redis.mget(...keys);
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
