import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/**
 * Benchmarks must never overlap on a machine: one lock per host id, held while a cell runs, so a
 * second worker process on the same host waits. The TTL frees the host if its holder dies.
 */
export async function acquireHostLock(input: {
  redis: Redis;
  hostId: string;
  ttlMs?: number;
  pollMs?: number;
  onWait?: () => void;
  signal?: AbortSignal;
}): Promise<{ release: () => Promise<void> }> {
  const key = `perflab:host-lock:${input.hostId}`;
  const token = randomUUID();
  const ttlMs = input.ttlMs ?? 15_000;
  let waited = false;
  for (;;) {
    if (input.signal?.aborted) throw new Error("stopped while waiting for the host lock");
    const ok = await input.redis.set(key, token, "PX", ttlMs, "NX");
    if (ok === "OK") break;
    if (!waited) input.onWait?.();
    waited = true;
    await new Promise((r) => setTimeout(r, input.pollMs ?? 250));
  }
  const timer = setInterval(() => {
    input.redis.eval(EXTEND, 1, key, token, String(ttlMs)).catch(() => undefined);
  }, ttlMs / 3);
  return {
    async release() {
      clearInterval(timer);
      await input.redis.eval(RELEASE, 1, key, token);
    },
  };
}
