/**
 * The run page's event stream across a Redis restart. ioredis re-subscribes by itself when Redis
 * comes back, but whatever the worker published meanwhile is gone: the stream must then send a
 * fresh snapshot from Postgres, or the page shows a finished run as running until it is reloaded.
 * The web app here has a Redis of its own, restarted under an open stream.
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

describe("the run event stream when Redis restarts", () => {
  it("sends a fresh snapshot once Redis is back, then live events again", async () => {
    const redisDir = path.join(inject("tmpDir"), "redis-web-reconnect");
    const port = await freePort();
    let redis = await startRedis({ dir: redisDir, port });
    started.push({ name: "redis", stop: () => redis.stop() });
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      port: await freePort(),
    });
    started.push(web);

    // No job: no worker touches this run; the test plays the worker in Postgres.
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }],
      { enqueue: false },
    );
    runs.push(runId);
    const controller = new AbortController();
    const response = await fetch(`${web.url}/api/v1/runs/${runId}/events`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const next = eventReader(response.body!);
    const first = await next(10_000);
    expect(first).toMatchObject({ type: "snapshot", run: { status: "queued" } });

    await redis.stop();
    // The run ends while Redis is down: the worker's live events about it are lost.
    const db = testDb();
    const now = new Date();
    await db.cell.update({
      where: { id: cellIds[0]! },
      data: { status: "succeeded", startedAt: now, finishedAt: now },
    });
    await db.run.update({
      where: { id: runId },
      data: { status: "succeeded", cellsDone: 1, startedAt: now, finishedAt: now },
    });
    await new Promise((r) => setTimeout(r, 1_000));
    redis = await startRedis({ dir: redisDir, port });

    const fresh = await next(30_000);
    expect(fresh).toMatchObject({ type: "snapshot", run: { status: "succeeded" } });

    // The channel is subscribed again: a live event published now reaches the stream.
    const publisher = new Redis(redis.url);
    try {
      const event = { type: "cell", cellId: cellIds[0]!, status: "succeeded" };
      await publisher.publish(runChannel(runId), JSON.stringify(event));
      expect(await next(10_000)).toMatchObject(event);
    } finally {
      publisher.disconnect();
      controller.abort();
    }
  });
});
