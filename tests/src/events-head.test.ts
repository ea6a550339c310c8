/**
 * HEAD of a run's event stream answers what GET would, without a stream: Next.js would otherwise
 * run GET for it and drop the body unread, so the stream was never cancelled and its slot of the
 * process's live hub (and its heartbeat timer) stayed taken for good. The web app here has a cap of
 * two streams, so a single leaked slot shows as a refused GET.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startWeb } from "../../scripts/lib/services.ts";
import { queueRun, testDb } from "./helpers.ts";

const started: Service[] = [];
const runs: string[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  await testDb().run.deleteMany({ where: { id: { in: runs } } });
});

describe("HEAD /api/v1/runs/{id}/events", () => {
  it("answers the stream's status and headers and holds no slot of the live hub", async () => {
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      port: await freePort(),
      env: { PERFLAB_MAX_LIVE_STREAMS: "2" },
    });
    started.push(web);
    // No job: no worker touches this run.
    const { runId } = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }], {
      enqueue: false,
    });
    runs.push(runId);
    const events = `${web.url}/api/v1/runs/${runId}/events`;

    const unknown = await fetch(`${web.url}/api/v1/runs/no-such-run/events`, { method: "HEAD" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");

    for (let i = 0; i < 3; i++) {
      const head = await fetch(events, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(head.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(await head.text()).toBe("");
    }

    // Both slots are still free: two streams open, each starting with its snapshot.
    const controller = new AbortController();
    try {
      for (let i = 0; i < 2; i++) {
        const stream = await fetch(events, { signal: controller.signal });
        expect(stream.status, `stream ${i + 1}`).toBe(200);
        const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while (!text.includes('"type":"snapshot"')) {
          const chunk = await reader.read();
          if (chunk.done) throw new Error("the stream ended before its snapshot");
          text += chunk.value;
        }
      }
      // Now the hub is full: a third stream is refused, and HEAD says so as GET would.
      expect((await fetch(events)).status).toBe(503);
      expect((await fetch(events, { method: "HEAD" })).status).toBe(503);
    } finally {
      controller.abort();
    }
  });
});
