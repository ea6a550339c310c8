import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

/**
 * The running kernel's boot id: one value for every process and container of a machine (the pid
 * namespace does not change it), another on any other machine.
 */
export function machineBootId(): string {
  return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
}

// Redis's clock, not the workers': machines' clocks may disagree. Returns the other machines whose
// claim on the host id is fresh; the caller's own is recorded only when there are none, or `force`.
const CLAIM = `local t = redis.call("time")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = tonumber(ARGV[2])
local others = {}
local all = redis.call("hgetall", KEYS[1])
for i = 1, #all, 2 do
  if all[i] ~= ARGV[1] then
    if now - tonumber(all[i + 1]) < stale then table.insert(others, all[i]) else redis.call("hdel", KEYS[1], all[i]) end
  end
end
if #others == 0 or ARGV[3] == "1" then
  redis.call("hset", KEYS[1], ARGV[1], now)
  redis.call("pexpire", KEYS[1], stale)
end
return others`;

/** Another machine's worker uses this host id: the two would reap each other's servers and share one host lock. */
export class HostIdInUse extends Error {
  override name = "HostIdInUse";
}

/**
 * Claims PERFLAB_HOST_ID for this machine among the workers on the same Redis, and keeps the claim
 * fresh. Worker processes of one machine share a claim; a worker on another machine with the same
 * id (two machines both named "debian", say) is refused at start with HostIdInUse, because its
 * orphan sweep would kill this machine's servers and containers of a shared engine, and its cells
 * would queue behind this machine's on the host lock. A claim lapses `staleMs` after its last
 * renewal, so a machine that went away (or rebooted: a new boot id) frees the id.
 */
export async function claimHostId(input: {
  redis: Redis;
  hostId: string;
  bootId?: string;
  staleMs?: number;
  /** Tries while Redis does not answer, a second apart. */
  attempts?: number;
  onConflict?: (others: string[]) => void;
}): Promise<{ stop: () => void }> {
  const key = `perflab:host-id:${input.hostId}`;
  const bootId = input.bootId ?? machineBootId();
  const staleMs = input.staleMs ?? 15_000;
  const claim = async (force: boolean) =>
    (await input.redis.eval(CLAIM, 1, key, bootId, String(staleMs), force ? "1" : "0")) as string[];
  // Redis may still be starting beside the worker (compose, a restart): a few tries, then its error.
  let others: string[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      others = await claim(false);
      break;
    } catch (error) {
      if (attempt >= (input.attempts ?? 15)) throw error;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  if (others.length > 0) {
    throw new HostIdInUse(
      `PERFLAB_HOST_ID "${input.hostId}" is in use by a worker on another machine (boot id ${others.join(", ")}): ` +
        "give each machine its own PERFLAB_HOST_ID (the default is the hostname)",
    );
  }
  // Renewed well inside the window; a renewal that finds another machine (it claimed the id while
  // this one could not reach Redis) is reported, and both keep their claims fresh from then on.
  const timer = setInterval(() => {
    claim(true)
      .then((found) => {
        if (found.length > 0) input.onConflict?.(found);
      })
      .catch(() => undefined);
  }, staleMs / 3);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
