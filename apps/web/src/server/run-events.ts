import { runChannel, ZLiveEvent } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { Redis } from "ioredis";
import type { RunSnapshotEvent } from "../lib/dto";
import { AppError } from "./errors";
import { getCellPoints } from "./operations/get-cell-points";
import { getRun } from "./operations/get-run";

export type RunEventStreamParams = {
  db: Db;
  runId: string;
  /** A fresh connection owned by this stream; it is closed when the stream ends. */
  subscriber: Redis;
  signal: AbortSignal;
  heartbeatMs?: number;
  subscribeTimeoutMs?: number;
};

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function readSnapshot(db: Db, runId: string): Promise<RunSnapshotEvent> {
  const { run, cells } = await getRun({ db, runId });
  const points = await getCellPoints({ db, cellIds: cells.map((c) => c.id) });
  return { type: "snapshot", run, cells, points };
}

/**
 * Server-sent events of one run: a snapshot from Postgres, then every live event the worker
 * publishes on Redis. Subscribing happens before the snapshot is read, so an event published in
 * between is delivered (possibly twice — points are keyed by second, so that is harmless).
 *
 * Events published while the subscriber's connection is down are lost (ioredis re-subscribes
 * silently), so when it is ready again the stream is sent a fresh snapshot, read once the channel is
 * subscribed again; live events arriving meanwhile follow it. If that fails the stream closes and
 * the browser's EventSource reconnects, which starts with a snapshot too.
 */
export async function openRunEventStream({
  db,
  runId,
  subscriber,
  signal,
  heartbeatMs = 15_000,
  subscribeTimeoutMs = 5_000,
}: RunEventStreamParams): Promise<ReadableStream<Uint8Array>> {
  let closed = false;
  const buffered: Uint8Array[] = [];
  let push: ((chunk: Uint8Array) => void) | null = null;
  let heartbeat: NodeJS.Timeout | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;

  const cleanup = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    signal.removeEventListener("abort", cleanup);
    subscriber.removeAllListeners("message");
    // quit() on a connection that never came up would wait in the offline queue forever.
    if (subscriber.status === "ready") {
      void subscriber
        .unsubscribe()
        .catch(() => undefined)
        .finally(() => subscriber.quit().catch(() => subscriber.disconnect()));
    } else {
      subscriber.disconnect();
    }
    try {
      controllerRef?.close();
    } catch {
      // Already closed by the runtime after the client went away.
    }
  };

  /** Live events held while a fresh snapshot is read after a reconnect; they follow it. */
  let held: Uint8Array[] | null = null;
  const deliver = (chunk: Uint8Array) => {
    if (held) held.push(chunk);
    else if (push) push(chunk);
    else buffered.push(chunk);
  };

  // A connection lost once subscribed may have lost events; a resync needs the first snapshot read.
  let subscribed = false;
  let live = false;
  let dropped = false;
  let resyncWhenLive = false;
  let resyncing = false;
  let resyncAgain = false;
  const resync = async () => {
    if (resyncing) {
      resyncAgain = true;
      return;
    }
    resyncing = true;
    held ??= [];
    try {
      let snapshot: RunSnapshotEvent;
      do {
        resyncAgain = false;
        // ioredis re-subscribes as the connection becomes ready; this SUBSCRIBE is queued behind
        // that one, so once it answers no event can fall between the channel and the snapshot.
        await withTimeout(subscriber.subscribe(runChannel(runId)), subscribeTimeoutMs, "re-subscribe");
        snapshot = await readSnapshot(db, runId);
      } while (resyncAgain && !closed);
      if (closed) return;
      const after = held ?? [];
      held = null;
      deliver(frame(snapshot));
      for (const chunk of after) deliver(chunk);
    } catch (error) {
      console.error(`[events ${runId}] no fresh snapshot after Redis came back; closing:`, error);
      cleanup();
    } finally {
      resyncing = false;
    }
  };

  subscriber.on("error", (error) => console.error(`[events ${runId}] redis:`, error.message));
  subscriber.on("close", () => {
    if (subscribed) dropped = true;
  });
  subscriber.on("ready", () => {
    if (!dropped || closed) return;
    dropped = false;
    if (live) void resync();
    else resyncWhenLive = true;
  });
  // ioredis gave up reconnecting: close, so the browser reconnects (and is told if Redis is down).
  subscriber.on("end", () => cleanup());
  subscriber.on("message", (_channel: string, message: string) => {
    let parsed: ReturnType<typeof ZLiveEvent.safeParse>;
    try {
      parsed = ZLiveEvent.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (!parsed.success) {
      console.warn(`[events ${runId}] dropped an invalid live event`);
      return;
    }
    deliver(frame(parsed.data));
  });

  try {
    await withTimeout(subscriber.subscribe(runChannel(runId)), subscribeTimeoutMs, "subscribe");
    subscribed = true;
  } catch (error) {
    cleanup();
    console.error(`[events ${runId}] subscribe failed:`, error);
    throw new AppError("unavailable", "Live updates are unavailable: Redis did not answer.");
  }

  let snapshot: RunSnapshotEvent;
  try {
    snapshot = await readSnapshot(db, runId);
  } catch (error) {
    cleanup();
    throw error;
  }
  live = true;
  if (resyncWhenLive) void resync();

  if (signal.aborted) cleanup();
  signal.addEventListener("abort", cleanup);

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controllerRef = controller;
      if (closed) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode("retry: 3000\n\n"));
      controller.enqueue(frame(snapshot));
      for (const chunk of buffered.splice(0)) controller.enqueue(chunk);
      push = (chunk) => {
        if (!closed) controller.enqueue(chunk);
      };
      // Comments keep proxies and the browser from timing out an idle stream.
      heartbeat = setInterval(() => push?.(encoder.encode(": heartbeat\n\n")), heartbeatMs);
    },
    cancel() {
      cleanup();
    },
  });
}
