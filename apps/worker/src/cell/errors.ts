import type { ExitInfo } from "../drivers/types.ts";
import type { K6Result } from "../stages/k6.ts";

/** A failure with a reason a user can act on; it ends the cell `failed`, and the run goes on. */
export class CellFailure extends Error {}

/** The abort reason when a user cancelled the cell's run: the cell ends `cancelled`, unmeasured. */
export class CellCancelled extends Error {
  override name = "CellCancelled";
}

/**
 * Thrown when the cell's signal was aborted before the cell was claimed: nothing of it ran, so the
 * worker puts its job back in the queue rather than failing a cell it never started.
 */
export class CellNotStarted extends Error {
  override name = "CellNotStarted";
}

export const SHUT_DOWN_DURING = "the worker was shut down during the cell";

/** A named reason (the host lock was lost) or, for a plain abort, the worker's shutdown. */
export function abortReason(signal: AbortSignal, shutdown: string): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== "AbortError" ? reason.message : shutdown;
}

/**
 * Rejects with the abort's reason (as a CellFailure) as soon as `signal` fires, whatever `work` is
 * still doing: a stage that cannot be interrupted itself no longer holds the cell.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CellFailure(abortReason(signal, SHUT_DOWN_DURING)));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Why the load failed, in order of cause: a stop, the server's exit, k6's own failure; or null. */
export function loadFailure(input: {
  signal: AbortSignal | undefined;
  serverExit: ExitInfo | null;
  /** Null when perflab itself stopped k6 (its exit is then no failure of k6's). */
  k6: K6Result | null;
}): string | null {
  const { signal, serverExit: exit, k6 } = input;
  if (signal?.aborted) return abortReason(signal, SHUT_DOWN_DURING);
  if (exit?.oomKilled) return "OOM-killed: the server went past its memory limit during the load";
  if (exit) return `server exited during the load (${exitDescription(exit)})`;
  if (k6 && k6.exitCode !== 0)
    return `k6 failed (exit ${k6.exitCode ?? k6.signal}): ${lastLines(k6.logTail, 5)}`;
  return null;
}

export function exitDescription(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
}

function lastLines(text: string, n: number): string {
  return text.trim().split("\n").slice(-n).join(" | ");
}
