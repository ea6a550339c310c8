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

/**
 * Server-sent events of one run: a snapshot from Postgres, then every live event the worker
 * publishes on Redis. Subscribing happens before the snapshot is read, so an event published in
 * between is delivered (possibly twice — points are keyed by second, so that is harmless).
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

  subscriber.on("error", (error) => console.error(`[events ${runId}] redis:`, error.message));
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
    const chunk = frame(parsed.data);
    if (push) push(chunk);
    else buffered.push(chunk);
  });

  try {
    await withTimeout(subscriber.subscribe(runChannel(runId)), subscribeTimeoutMs, "subscribe");
  } catch (error) {
    cleanup();
    console.error(`[events ${runId}] subscribe failed:`, error);
    throw new AppError("unavailable", "Live updates are unavailable: Redis did not answer.");
  }

  let snapshot: RunSnapshotEvent;
  try {
    const { run, cells } = await getRun({ db, runId });
    const points = await getCellPoints({ db, cellIds: cells.map((c) => c.id) });
    snapshot = { type: "snapshot", run, cells, points };
  } catch (error) {
    cleanup();
    throw error;
  }

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
