import type { Db } from "@perflab/db";
import type { RunSnapshotEvent } from "../lib/dto";
import { AppError } from "./errors";
import type { LiveHub, LiveListener } from "./live-hub";
import { getCellPoints } from "./operations/get-cell-points";
import { getRun } from "./operations/get-run";
import { runScope } from "./operations/run-scope";

export type RunEventStreamParams = {
  db: Db;
  runId: string;
  /** The reader's workspace in a private lab: a run of another is "not found". */
  workspaceId?: string | null;
  /** The process's shared subscription (getLiveHub); a stream holds the run's channel while open. */
  hub: LiveHub;
  signal: AbortSignal;
  heartbeatMs?: number;
  /** Open streams in this process beyond which a new one is refused with 503. */
  maxStreams?: number;
  /** Chunks a stream may have queued for a client that does not read before it is closed. */
  maxQueued?: number;
};

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);

async function readSnapshot(db: Db, runId: string, workspaceId: string | null): Promise<RunSnapshotEvent> {
  const { run, cells } = await getRun({ db, runId, workspaceId });
  const points = await getCellPoints({ db, cellIds: cells.map((c) => c.id) });
  return { type: "snapshot", run, cells, points };
}

/** The response headers of a run's event stream: server-sent events, never cached or buffered. */
export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

function refuseWhenFull(hub: LiveHub, maxStreams: number): void {
  if (hub.size >= maxStreams) {
    throw new AppError(
      "unavailable",
      `Live updates are unavailable: this lab already serves ${maxStreams} live streams. Reload later.`,
    );
  }
}

/**
 * What opening the run's stream would answer, without opening it (for HEAD): a 404 for a run that
 * does not exist, a 503 when the process serves its most streams. Holds no slot of the hub and
 * subscribes to nothing.
 */
export async function checkRunEventStream({
  db,
  runId,
  workspaceId = null,
  hub,
  maxStreams = 1_000,
}: Pick<RunEventStreamParams, "db" | "runId" | "workspaceId" | "hub" | "maxStreams">): Promise<void> {
  const run = await db.run.findFirst({
    where: { id: runId, ...runScope(workspaceId) },
    select: { id: true },
  });
  if (!run)
    throw new AppError("not_found", `Run "${runId}" does not exist.`, [
      { field: "id", message: "names no run" },
    ]);
  refuseWhenFull(hub, maxStreams);
}

/**
 * Server-sent events of one run: a snapshot from Postgres, then every live event the worker
 * publishes on Redis. The run's channel is subscribed before the snapshot is read, so an event
 * published in between is delivered (possibly twice — points are keyed by second, so that is
 * harmless).
 *
 * Events published while the hub's connection is down are lost (ioredis re-subscribes silently),
 * so when it is ready again the stream is sent a fresh snapshot, read once the channel is
 * subscribed again; live events arriving meanwhile follow it. If that fails the stream closes and
 * the browser's EventSource reconnects, which starts with a snapshot too. So does a client that
 * stopped reading: its stream is closed rather than left to grow in memory.
 */
export async function openRunEventStream({
  db,
  runId,
  workspaceId = null,
  hub,
  signal,
  heartbeatMs = 15_000,
  maxStreams = 1_000,
  maxQueued = 1_000,
}: RunEventStreamParams): Promise<ReadableStream<Uint8Array>> {
  refuseWhenFull(hub, maxStreams);
  let closed = false;
  const buffered: Uint8Array[] = [];
  let push: ((chunk: Uint8Array) => void) | null = null;
  let heartbeat: NodeJS.Timeout | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;
  let leave: (() => void) | null = null;

  const onAbort = () => cleanup();
  /** Ends the stream; with an error the response is aborted and what it still queued is dropped. */
  const cleanup = (failure?: Error) => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    signal.removeEventListener("abort", onAbort);
    leave?.();
    try {
      if (failure) controllerRef?.error(failure);
      else controllerRef?.close();
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

  let live = false;
  let pendingResync: Promise<void> | null = null;
  let resyncing = false;
  let resyncAgain: Promise<void> | null = null;
  const resync = async (resubscribed: Promise<void>) => {
    if (resyncing) {
      resyncAgain = resubscribed;
      return;
    }
    resyncing = true;
    held ??= [];
    try {
      let snapshot: RunSnapshotEvent;
      let waitFor: Promise<void> | null = resubscribed;
      do {
        const current: Promise<void> = waitFor;
        resyncAgain = null;
        await current;
        snapshot = await readSnapshot(db, runId, workspaceId);
        waitFor = resyncAgain;
      } while (waitFor && !closed);
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

  const listener: LiveListener = {
    event: (event) => deliver(frame(event)),
    resync: (resubscribed) => {
      if (closed) return;
      held ??= [];
      if (live) void resync(resubscribed);
      else pendingResync = resubscribed;
    },
    end: () => cleanup(),
  };

  try {
    leave = await hub.join(runId, listener);
  } catch (error) {
    cleanup();
    console.error(`[events ${runId}] subscribe failed:`, error);
    throw new AppError("unavailable", "Live updates are unavailable: Redis did not answer.");
  }

  let snapshot: RunSnapshotEvent;
  try {
    snapshot = await readSnapshot(db, runId, workspaceId);
  } catch (error) {
    cleanup();
    throw error;
  }
  live = true;
  if (pendingResync) {
    const resubscribed: Promise<void> = pendingResync;
    pendingResync = null;
    void resync(resubscribed);
  }

  if (signal.aborted) cleanup();
  signal.addEventListener("abort", onAbort);

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
        if (closed) return;
        // A client that stopped reading: its EventSource reconnects and starts with a snapshot.
        if ((controller.desiredSize ?? 0) < -maxQueued) {
          cleanup(new Error(`the client read none of the last ${maxQueued} events`));
          return;
        }
        controller.enqueue(chunk);
      };
      // Comments keep proxies and the browser from timing out an idle stream.
      heartbeat = setInterval(() => push?.(encoder.encode(": heartbeat\n\n")), heartbeatMs);
    },
    cancel() {
      cleanup();
    },
  });
}
