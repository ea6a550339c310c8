/**
 * Two machines given one PERFLAB_HOST_ID on the same Redis: the second machine's worker is refused at
 * start, named; worker processes of one machine share the id; a claim lapses when its machine goes.
 * Another machine is simulated by its boot id, the one thing that tells machines apart.
 */
import { randomUUID } from "node:crypto";
import { claimHostId, HostIdInUse, machineBootId } from "@perflab/worker/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startWorker } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, startOwnRedis, until } from "./helpers.ts";

const redis = new Redis(inject("redisUrl"));
const stops: (() => void)[] = [];
afterAll(async () => {
  for (const stop of stops) stop();
  await redis.quit();
});

const otherMachine = () => randomUUID();

describe("claimHostId", () => {
  it("lets every worker process of one machine use the host id", async () => {
    const hostId = `claim-${randomUUID()}`;
    const first = await claimHostId({ redis, hostId });
    stops.push(first.stop);
    const second = await claimHostId({ redis, hostId, bootId: machineBootId() });
    stops.push(second.stop);
    expect(Object.keys(await redis.hgetall(`perflab:host-id:${hostId}`))).toEqual([machineBootId()]);
  });

  it("refuses another machine while the claim is fresh, and lets it in once the claim lapsed", async () => {
    const hostId = `claim-${randomUUID()}`;
    const elsewhere = otherMachine();
    const held = await claimHostId({ redis, hostId, staleMs: 1_500 });
    const refused = await claimHostId({ redis, hostId, bootId: elsewhere, staleMs: 1_500 }).catch((e) => e);
    expect(refused).toBeInstanceOf(HostIdInUse);
    expect((refused as Error).message).toContain(
      `PERFLAB_HOST_ID "${hostId}" is in use by a worker on another machine`,
    );
    expect((refused as Error).message).toContain(machineBootId());
    // Kept fresh by its renewals well past the window...
    await new Promise((r) => setTimeout(r, 2_500));
    await expect(claimHostId({ redis, hostId, bootId: elsewhere, staleMs: 1_500 })).rejects.toThrow(
      HostIdInUse,
    );
    // ...and free once its machine stopped renewing it.
    held.stop();
    await new Promise((r) => setTimeout(r, 1_700));
    const taken = await claimHostId({ redis, hostId, bootId: elsewhere, staleMs: 1_500 });
    stops.push(taken.stop);
    expect(Object.keys(await redis.hgetall(`perflab:host-id:${hostId}`))).toEqual([elsewhere]);
  });

  it("reports a machine that claimed the id while this one could not renew", async () => {
    const hostId = `claim-${randomUUID()}`;
    const conflicts: string[][] = [];
    const held = await claimHostId({ redis, hostId, staleMs: 900, onConflict: (o) => conflicts.push(o) });
    stops.push(held.stop);
    // The other machine's claim, written as if this one's had lapsed meanwhile.
    const elsewhere = otherMachine();
    const [seconds] = await redis.time();
    await redis.hset(`perflab:host-id:${hostId}`, elsewhere, String(Number(seconds) * 1000 + 5_000));
    await until(async () => conflicts.length > 0, 5_000, "the conflict to be reported");
    expect(conflicts[0]).toEqual([elsewhere]);
  });
});

describe("a worker on a second machine with the same PERFLAB_HOST_ID", () => {
  it("does not start, and names the variable", async () => {
    const own = await startOwnRedis("host-claim");
    const ownRedis = new Redis(own.url);
    const hostId = `claim-${randomUUID()}`;
    try {
      // The first machine's worker holds the id (its claim renewed as a worker would).
      const elsewhere = otherMachine();
      const keep = async () => {
        const [s, us] = await ownRedis.time();
        await ownRedis.hset(
          `perflab:host-id:${hostId}`,
          elsewhere,
          String(Number(s) * 1000 + Math.floor(Number(us) / 1000)),
        );
      };
      await keep();
      const renew = setInterval(() => void keep(), 2_000);
      const worker = startWorker({
        databaseUrl: inject("databaseUrl"),
        redisUrl: own.url,
        env: ownWorkerEnv("host-claim", { PERFLAB_HOST_ID: hostId }),
      });
      try {
        const reason = await until(async () => worker.exitReason(), 60_000, "the worker to exit");
        expect(reason).not.toContain("exited (0)");
        expect(reason).toContain(`PERFLAB_HOST_ID "${hostId}" is in use by a worker on another machine`);
        // It took nothing: no claim of this machine was written.
        expect(Object.keys(await ownRedis.hgetall(`perflab:host-id:${hostId}`))).toEqual([elsewhere]);
      } finally {
        clearInterval(renew);
        await worker.stop();
      }
    } finally {
      await ownRedis.quit();
      await own.stop();
    }
  });
});
