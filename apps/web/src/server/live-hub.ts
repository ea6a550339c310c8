import { runChannel, type TLiveEvent, ZLiveEvent } from "@perflab/contracts";
import type { Redis } from "ioredis";

/** What a run's event stream is told by the hub. */
export type LiveListener = {
  /** A valid live event of the run, parsed once for every listener of the channel. */
  event(event: TLiveEvent): void;
  /**
   * The connection was lost and is back; events published meanwhile are gone. `resubscribed`
   * settles once the channels are subscribed again (it rejects if that does not happen in time):
   * every event after this call is one the listener should hold until it has a fresh snapshot.
   */
  resync(resubscribed: Promise<void>): void;
  /** The hub's connection is closed for good: the listener's stream should end. */
  end(): void;
};

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
 * One subscribed Redis connection per web process, shared by every open run event stream: a
 * channel is subscribed while at least one stream of its run is open. Before, each viewer held a
 * connection of its own, so viewers were bounded by Redis's client limit, which the worker shares.
 */
export class LiveHub {
  private readonly channels = new Map<string, Set<LiveListener>>();
  private listenerCount = 0;
  private dropped = false;
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly subscribeTimeoutMs = 5_000,
  ) {
    redis.on("error", (error: Error) => console.error("[live] redis:", error.message));
    redis.on("message", (channel: string, message: string) => this.onMessage(channel, message));
    redis.on("close", () => {
      if (this.channels.size > 0) this.dropped = true;
    });
    redis.on("ready", () => {
      if (!this.dropped || this.closed) return;
      this.dropped = false;
      this.resubscribeAll();
    });
    // Only after close(), or if a retry strategy gives up: the streams end and the browsers
    // reconnect, to a new hub.
    redis.on("end", () => this.shutDown());
  }

  /** Open streams, across all runs. */
  get size(): number {
    return this.listenerCount;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether a channel of this run is held by at least one stream (for tests and diagnostics). */
  has(runId: string): boolean {
    return this.channels.has(runChannel(runId));
  }

  /**
   * Adds a listener of one run; resolves, with the function that removes it, once the run's
   * channel is subscribed — every event published after that reaches the listener.
   */
  async join(runId: string, listener: LiveListener): Promise<() => void> {
    if (this.closed) throw new Error("the live hub is closed");
    const channel = runChannel(runId);
    let listeners = this.channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.channels.set(channel, listeners);
    }
    listeners.add(listener);
    this.listenerCount += 1;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.listenerCount -= 1;
      const current = this.channels.get(channel);
      if (!current?.delete(listener) || current.size > 0) return;
      this.channels.delete(channel);
      // Commands go out in order, so a later join's SUBSCRIBE follows this one and wins.
      if (!this.closed) this.redis.unsubscribe(channel).catch(() => undefined);
    };
    try {
      // SUBSCRIBE of a channel already subscribed is a no-op, and its answer still says that
      // everything queued before it on this connection has happened.
      await withTimeout(this.redis.subscribe(channel), this.subscribeTimeoutMs, "subscribe");
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  /** Closes the connection; every listener is told to end. */
  close(): void {
    if (this.closed) return;
    this.shutDown();
    this.redis.disconnect();
  }

  private shutDown(): void {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.channels.values()].flatMap((set) => [...set]);
    this.channels.clear();
    this.listenerCount = 0;
    for (const listener of all) listener.end();
  }

  private onMessage(channel: string, message: string): void {
    const listeners = this.channels.get(channel);
    if (!listeners || listeners.size === 0) return;
    let parsed: ReturnType<typeof ZLiveEvent.safeParse>;
    try {
      parsed = ZLiveEvent.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (!parsed.success) {
      console.warn(`[live] dropped an invalid event on ${channel}`);
      return;
    }
    for (const listener of [...listeners]) listener.event(parsed.data);
  }

  /**
   * ioredis re-subscribes by itself as the connection becomes ready; this SUBSCRIBE is queued
   * behind that, so once it answers no event can fall between the channels and a snapshot read
   * after it.
   */
  private resubscribeAll(): void {
    const channels = [...this.channels.keys()];
    if (channels.length === 0) return;
    const resubscribed = withTimeout(
      this.redis.subscribe(...channels).then(() => undefined),
      this.subscribeTimeoutMs,
      "re-subscribe",
    );
    // Each listener awaits it; this keeps a rejection nobody awaits from becoming unhandled.
    resubscribed.catch(() => undefined);
    for (const channel of channels) {
      for (const listener of [...(this.channels.get(channel) ?? [])]) listener.resync(resubscribed);
    }
  }
}
