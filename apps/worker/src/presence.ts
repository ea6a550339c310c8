import {
  type TWorkerPresence,
  WORKER_PRESENCE_INDEX,
  WORKER_PRESENCE_PREFIX,
  WORKER_PRESENCE_TTL_MS,
  ZWorkerPresence,
} from "@perflab/contracts";
import type { Redis } from "ioredis";
import { machineBootId } from "./host-claim.ts";

type Engine = Pick<TWorkerPresence["docker"], "reachable" | "version" | "error">;

type AnnounceInput = {
  redis: Redis;
  hostId: string;
  k6: TWorkerPresence["k6"];
  engine: TWorkerPresence["docker"]["engine"];
  dockerVersion: () => Promise<{ Version?: string }>;
  intervalMs?: number;
  engineIntervalMs?: number;
  ttlMs?: number;
};

/**
 * Announces this worker in Redis (see WORKER_PRESENCE_PREFIX): rewritten every `intervalMs` with a
 * time to live, the Docker engine checked every `engineIntervalMs` (a bounded `version` call: an
 * engine that does not answer in 3 s is unreachable), the current cell set as it changes. A Redis
 * that does not answer only delays the next rewrite; `stop` deletes the key.
 */
export async function announceWorker(input: AnnounceInput) {
  const id = `${input.hostId}:${process.pid}:${machineBootId().slice(0, 8)}`;
  const key = `${WORKER_PRESENCE_PREFIX}${id}`;
  const ttlMs = input.ttlMs ?? WORKER_PRESENCE_TTL_MS;
  const startedAt = new Date().toISOString();
  let docker: TWorkerPresence["docker"] = {
    engine: input.engine,
    reachable: false,
    version: null,
    error: "not checked yet",
    checkedAt: startedAt,
  };
  let cell: TWorkerPresence["cell"] = null;
  let stopped = false;
  let inflight: Promise<unknown> = Promise.resolve();

  const checkEngine = async () => {
    docker = await engineState(input.engine, input.dockerVersion);
  };
  // Never throws: a presence that cannot be written (Redis away, an odd engine error) waits for the
  // next rewrite; it must not take the worker down with an unhandled rejection.
  const write = async () => {
    if (stopped) return;
    try {
      const presence = JSON.stringify(
        ZWorkerPresence.parse({
          id,
          hostId: input.hostId,
          pid: process.pid,
          startedAt,
          k6: input.k6,
          docker,
          cell,
        }),
      );
      inflight = input.redis
        .multi()
        .set(key, presence, "PX", ttlMs)
        .sadd(WORKER_PRESENCE_INDEX, id)
        .exec()
        .catch(() => undefined);
      await inflight;
    } catch {
      // the next rewrite tries again
    }
  };

  await checkEngine();
  await write();
  const rewrite = setInterval(() => void write(), input.intervalMs ?? 5_000);
  const recheck = setInterval(() => void checkEngine().then(write), input.engineIntervalMs ?? 15_000);
  rewrite.unref();
  recheck.unref();
  return {
    id,
    setCell(next: TWorkerPresence["cell"]) {
      cell = next;
      void write();
    },
    /** Leaves the list at once; bounded, so a Redis that does not answer cannot hold up shutdown. */
    async stop(timeoutMs = 1_000) {
      stopped = true;
      clearInterval(rewrite);
      clearInterval(recheck);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        inflight
          .then(() => input.redis.multi().del(key).srem(WORKER_PRESENCE_INDEX, id).exec())
          .catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

/** The Docker engine as the presence shows it: its version, or why it did not answer within 3 s. */
async function engineState(
  engine: TWorkerPresence["docker"]["engine"],
  dockerVersion: () => Promise<{ Version?: string }>,
): Promise<TWorkerPresence["docker"]> {
  let timer: NodeJS.Timeout | undefined;
  const found: Engine = await Promise.race([
    dockerVersion().then((v) => ({ reachable: true, version: v.Version ?? "unknown", error: null })),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the engine did not answer within 3 s")), 3_000);
    }),
  ])
    .catch((error: unknown) => ({
      reachable: false,
      version: null,
      error: String((error as Error | undefined)?.message ?? error),
    }))
    .finally(() => clearTimeout(timer));
  return { engine, ...found, checkedAt: new Date().toISOString() };
}

/**
 * The id of another live worker that announces `cellId` as its cell, looking again every second
 * for up to `waitMs`: a worker whose key lapsed while Redis was away writes it again within its
 * rewrite interval once Redis answers. A killed worker's key lapses by its TTL, long before BullMQ
 * hands its job to someone else.
 */
export async function findCellOwner(input: {
  redis: Redis;
  cellId: string;
  /** This worker's own presence id, which also names the cell while it waits to run it. */
  selfId: string;
  waitMs: number;
}): Promise<string | null> {
  const deadline = Date.now() + input.waitMs;
  for (;;) {
    const ids = (await input.redis.smembers(WORKER_PRESENCE_INDEX)).filter((id) => id !== input.selfId);
    const values =
      ids.length > 0 ? await input.redis.mget(ids.map((id) => `${WORKER_PRESENCE_PREFIX}${id}`)) : [];
    for (const value of values) {
      if (value === null) continue;
      let parsed: ReturnType<typeof ZWorkerPresence.safeParse>;
      try {
        parsed = ZWorkerPresence.safeParse(JSON.parse(value));
      } catch {
        continue;
      }
      if (parsed.success && parsed.data.cell?.id === input.cellId) return parsed.data.id;
    }
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
