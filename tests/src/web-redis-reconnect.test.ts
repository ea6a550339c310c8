/**
 * The run page's event stream across a Redis restart. ioredis re-subscribes by itself when Redis
 * comes back, but whatever the worker published meanwhile is gone: the stream must then send a
 * fresh snapshot from Postgres, or the page shows a finished run as running until it is reloaded.
 * Every open stream of a web process shares one subscribed connection, so the number of viewers is
 * bounded by PERFLAB_MAX_LIVE_STREAMS, not by Redis's client limit (which the worker shares). The
 * web app here has a Redis of its own, restarted under open streams.
 */
import path from "node:path";
import { runChannel } from "@perflab/contracts";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startRedis, startWeb } from "../../scripts/lib/services.ts";
import { queueRun, testDb } from "./helpers.ts";

type Event = { type: string; run?: { status: string }; cellId?: string; status?: string };

const started: Service[] = [];
const runs: string[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  await testDb().run.deleteMany({ where: { id: { in: runs } } });
});

/** The `data:` events of a server-sent event stream, one at a time, each within `timeoutMs`. */
function eventReader(body: NonNullable<Response["body"]>) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  return async function next(timeoutMs: number): Promise<Event> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /^data: (.*)\n\n/m.exec(text);
      if (match) {
        text = text.slice(match.index + match[0].length);
        return JSON.parse(match[1]!) as Event;
      }
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("no event in time")), Math.max(0, deadline - Date.now()));
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error("the stream ended");
      text += chunk.value;
    }
  };
}

/** Connections of this Redis that hold at least one channel subscribed (CLIENT LIST's `sub=`). */
async function subscribedClients(redis: Redis): Promise<number> {
  const list = (await redis.client("LIST")) as string;
  return list.split("\n").filter((line) => /\bsub=[1-9]/.test(line)).length;
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the run event stream when Redis restarts", () => {
  it("serves every viewer from one subscription, refuses past the cap, and resyncs each after a restart", async () => {
    const redisDir = path.join(inject("tmpDir"), "redis-web-reconnect");
    const port = await freePort();
    let redis = await startRedis({ dir: redisDir, port });
    started.push({ name: "redis", stop: () => redis.stop() });
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      port: await freePort(),
      env: { PERFLAB_MAX_LIVE_STREAMS: "5" },
    });
    started.push(web);

    // No job: no worker touches these runs; the test plays the worker in Postgres.
    const spec = [{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }];
    const a = await queueRun(spec, { enqueue: false });
    const b = await queueRun(spec, { enqueue: false });
    runs.push(a.runId, b.runId);
    const controller = new AbortController();
    const open = async (runId: string) => {
      const response = await fetch(`${web.url}/api/v1/runs/${runId}/events`, { signal: controller.signal });
      expect(response.status).toBe(200);
      const next = eventReader(response.body!);
      expect(await next(10_000)).toMatchObject({ type: "snapshot", run: { status: "queued" } });
      return next;
    };
    // Three viewers of one run and two of another.
    const viewersA = [await open(a.runId), await open(a.runId), await open(a.runId)];
    const viewersB = [await open(b.runId), await open(b.runId)];

    const admin = new Redis(redis.url);
    try {
      // One connection holds both channels, whatever the number of viewers.
      expect(await subscribedClients(admin)).toBe(1);
      const numsub = (await admin.pubsub("NUMSUB", runChannel(a.runId), runChannel(b.runId))) as unknown[];
      expect(numsub).toEqual([runChannel(a.runId), 1, runChannel(b.runId), 1]);

      // A sixth stream is past PERFLAB_MAX_LIVE_STREAMS: a 503 problem, and the others go on.
      const refused = await fetch(`${web.url}/api/v1/runs/${a.runId}/events`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/5 live streams/);

      // One event on a channel reaches each of its viewers once, and none of the other run's.
      const eventA = { type: "cell", cellId: a.cellIds[0]!, status: "running" };
      await admin.publish(runChannel(a.runId), JSON.stringify(eventA));
      for (const next of viewersA) expect(await next(10_000)).toMatchObject(eventA);
      const eventB = { type: "cell", cellId: b.cellIds[0]!, status: "running" };
      await admin.publish(runChannel(b.runId), JSON.stringify(eventB));
      for (const next of viewersB) expect(await next(10_000)).toMatchObject(eventB);
    } finally {
      admin.disconnect();
    }

    await redis.stop();
    // Both runs end while Redis is down: the worker's live events about them are lost.
    const db = testDb();
    const now = new Date();
    for (const { runId, cellIds } of [a, b]) {
      await db.cell.update({
        where: { id: cellIds[0]! },
        data: { status: "succeeded", startedAt: now, finishedAt: now },
      });
      await db.run.update({
        where: { id: runId },
        data: { status: "succeeded", cellsDone: 1, startedAt: now, finishedAt: now },
      });
    }
    await new Promise((r) => setTimeout(r, 1_000));
    redis = await startRedis({ dir: redisDir, port });

    // Every viewer gets a fresh snapshot of its own run.
    for (const next of [...viewersA, ...viewersB]) {
      expect(await next(30_000)).toMatchObject({ type: "snapshot", run: { status: "succeeded" } });
    }

    // The channels are subscribed again, on one connection: a live event published now reaches them.
    const publisher = new Redis(redis.url);
    try {
      expect(await subscribedClients(publisher)).toBe(1);
      const event = { type: "cell", cellId: a.cellIds[0]!, status: "succeeded" };
      await publisher.publish(runChannel(a.runId), JSON.stringify(event));
      for (const next of viewersA) expect(await next(10_000)).toMatchObject(event);

      // Closing the streams lets go of both channels (the connection itself stays for the next viewer).
      controller.abort();
      const left = await until(
        () => publisher.pubsub("NUMSUB", runChannel(a.runId), runChannel(b.runId)) as Promise<unknown[]>,
        (n) => n[1] === 0 && n[3] === 0,
        10_000,
      );
      expect(left).toEqual([runChannel(a.runId), 0, runChannel(b.runId), 0]);

      // And the freed places take new viewers.
      const last = new AbortController();
      const again = await fetch(`${web.url}/api/v1/runs/${b.runId}/events`, { signal: last.signal });
      expect(again.status).toBe(200);
      const next = eventReader(again.body!);
      expect(await next(10_000)).toMatchObject({ type: "snapshot", run: { status: "succeeded" } });
      last.abort();
    } finally {
      publisher.disconnect();
    }
  });
});
