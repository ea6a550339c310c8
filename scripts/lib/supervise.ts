/**
 * Keeps one of the stack's child processes running: one that exits while the stack runs (a crash,
 * an OOM kill, a kill -9) is started again after a backoff, and both are said in the log.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Service, startChild } from "./services.ts";

type Child = ReturnType<typeof startChild>;

export type Backoff = { firstMs: number; maxMs: number; stableMs: number };

/** 1 s, doubling up to 30 s between attempts; a start that lasted a minute begins again at 1 s. */
export const RESTART_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

export type Supervised = Service & {
  /** The first start: its failure is the caller's (perflab does not come up), never retried. */
  started: Promise<void>;
  current: () => Child | null;
};

export function supervise(options: {
  name: string;
  /** Starts the process; calls `spawned` as soon as it exists, before it is ready. */
  start: (spawned: (child: Child) => void) => Promise<Child>;
  /** Each new process, as soon as it exists (to record its pid); a start waits for it. */
  onSpawn?: (child: Child) => Promise<void>;
  /** After each exit, before the next start, and after the stop: removes what the process left. */
  cleanUp?: (exited: Child) => Promise<void>;
  log: (line: string) => void;
  backoff?: Backoff;
}): Supervised {
  const { name, log } = options;
  const backoff = options.backoff ?? RESTART_BACKOFF;
  const stopping = new AbortController();
  let current: Child | null = null;
  let failures = 0;

  const cleanUp = async (exited: Child | null) => {
    if (!exited || !options.cleanUp) return;
    await options
      .cleanUp(exited)
      .catch((error: Error) => log(`» could not clean up after ${name}: ${error.message}`));
  };

  const launch = async () => {
    let recorded: Promise<void> | undefined;
    const spawned = (child: Child) => {
      current = child;
      recorded = options.onSpawn?.(child);
    };
    const child = await options.start(spawned);
    await recorded;
    const since = Date.now();
    child.child.once("exit", (code, signal) => {
      if (stopping.signal.aborted) return;
      void relaunch(child, signal ?? `exit code ${code}`, Date.now() - since);
    });
  };

  const relaunch = async (exited: Child, why: string, upMs: number): Promise<void> => {
    if (upMs >= backoff.stableMs) failures = 0;
    const delayMs = Math.min(backoff.maxMs, backoff.firstMs * 2 ** failures);
    failures += 1;
    log(`» ${name} exited (${why}); starting it again in ${delayMs / 1000} s`);
    await cleanUp(exited);
    await sleep(delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    if (stopping.signal.aborted) return;
    try {
      await launch();
      log(`» ${name} is running again (pid ${current?.child.pid})`);
    } catch (error) {
      if (stopping.signal.aborted) return;
      // A start that failed has stopped its process (services.ts): clean up after it and retry.
      void relaunch(current ?? exited, `it did not start: ${firstLine(error)}`, 0);
    }
  };

  return {
    name,
    started: launch(),
    current: () => current,
    async stop() {
      stopping.abort();
      await current?.stop();
      await cleanUp(current);
    },
  };
}

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split("\n")[0];
