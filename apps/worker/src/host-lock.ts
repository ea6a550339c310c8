import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
// 1: still ours; 2: the key had expired (Redis was away longer than the TTL) and nobody took the
// host meanwhile, so it is ours again; 0: another worker holds the host.
const EXTEND = `local v = redis.call("get", KEYS[1])
if v == ARGV[1] then redis.call("pexpire", KEYS[1], ARGV[2]) return 1 end
if not v then redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2]) return 2 end
return 0`;

/** Why a cell's host lock was lost: another cell may have run on the host at the same time. */
export class HostLockLost extends Error {
  override name = "HostLockLost";
}

export type HostLock = {
  release: () => Promise<void>;
  /** Aborted, with a HostLockLost reason, when another worker took the host while this one held it. */
  lost: AbortSignal;
};

/**
 * Benchmarks must never overlap on a machine: one lock per host id, held while a cell runs, so a
 * second worker process on the same host waits. The TTL frees the host if its holder dies; while
 * Redis is unreachable the lock cannot be renewed, and when it answers again the holder either
 * still has the host or learns that it was taken (`lost`).
 */
export async function acquireHostLock(input: {
  redis: Redis;
  hostId: string;
  ttlMs?: number;
  pollMs?: number;
  onWait?: () => void;
  signal?: AbortSignal;
}): Promise<HostLock> {
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
  const lost = new AbortController();
  const timer = setInterval(() => {
    input.redis
      .eval(EXTEND, 1, key, token, String(ttlMs))
      .then((result) => {
        if (result === 0 && !lost.signal.aborted) {
          clearInterval(timer);
          lost.abort(
            new HostLockLost(
              "another worker took this host while Redis could not renew the host lock: the cells may have overlapped, so the measurement was not kept",
            ),
          );
        }
      })
      .catch(() => undefined);
  }, ttlMs / 3);
  return {
    lost: lost.signal,
    async release() {
      clearInterval(timer);
      // Unreachable Redis: the key expires by its TTL instead.
      if (!lost.signal.aborted) await input.redis.eval(RELEASE, 1, key, token).catch(() => undefined);
    },
  };
}
