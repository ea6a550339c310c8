import { rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { writeCellRollups } from "@perflab/db";
import type { CellContext } from "../cell/context.ts";
import { CellCancelled, exitDescription } from "../cell/errors.ts";
import { type CellOutcome, finishCell } from "../cell/finish.ts";
import { withDbRetry } from "../db-retry.ts";
import type { ExitInfo } from "../drivers/types.ts";
import type { ServerTracker } from "./start.ts";

/** The least a cell's end waits for the database (see PERFLAB_DB_RETRY_MS for the rest). */
const FINISH_RETRY_MIN_MS = 60_000;

/**
 * Stops the server (if one started), records its exit and log, and removes the cell's scratch
 * directory. Returns the outcome as the exit changes it: an OOM kill, an exit of the server's own
 * or a failed stop fails even a measured cell, whose summary then goes.
 */
export async function releaseServer(
  ctx: CellContext,
  tracker: ServerTracker,
  measured: { outcome: CellOutcome; summaryWritten: boolean },
): Promise<CellOutcome> {
  let { outcome } = measured;
  const { running } = tracker;
  if (running) {
    await ctx.stage("stopping server");
    tracker.stopRequested = true;
    outcome = await stopServer(ctx, tracker, outcome);
    // A summary written before the exit, OOM kill or stop failure was seen is no result any more.
    if (measured.summaryWritten && outcome.status !== "succeeded") {
      await ctx.deps.db.cellSummary.deleteMany({ where: { cellId: ctx.cell.id } }).catch((error: Error) => {
        ctx.log.error({ err: error }, "could not remove the summary of a cell that failed after it");
      });
    }
  }
  await rm(ctx.workDir, { recursive: true, force: true }).catch(() => undefined);
  return outcome;
}

async function stopServer(
  ctx: CellContext,
  tracker: ServerTracker,
  before: CellOutcome,
): Promise<CellOutcome> {
  const { cell, deps } = ctx;
  const running = tracker.running!;
  let outcome = before;
  let stopped = false;
  try {
    const exit = await running.stop(deps.env.PERFLAB_STOP_GRACE_MS);
    stopped = true;
    const logTail = running.logTail();
    await ctx.durable("the server's exit", () =>
      deps.db.cell.update({
        where: { id: cell.id },
        data: { exitCode: exit.exitCode, exitSignal: exit.signal, oomKilled: exit.oomKilled, logTail },
      }),
    );
    // An OOM kill noticed only now (the exit landed after k6 ended, or before health) is still named.
    if (exit.oomKilled && !outcome.error?.startsWith("OOM-killed")) {
      const seen = outcome.status === "failed" ? ` (seen first as: ${outcome.error})` : "";
      outcome = { status: "failed", error: `OOM-killed: the server went past its memory limit${seen}` };
    }
    // An exit of its own that landed after k6 ended (so after the load's checks) still fails the cell.
    // Seen by the driver too: an exit that came before the stop but was reported after it.
    const own = (tracker.exitedOnItsOwn as ExitInfo | null) ?? (exit.beforeStop ? exit : null);
    if (own && outcome.status === "succeeded") {
      outcome = {
        status: "failed",
        error: `server exited on its own as the load ended (${exitDescription(own)}), before perflab stopped it`,
      };
    }
  } catch (error) {
    // The cell still ends with a reason; the measurement stands only if the server was stopped.
    const what = stopped ? "could not record the server's exit" : "could not stop the server";
    ctx.log.error({ err: error }, what);
    const reason = `${what}: ${(error as Error).message}`;
    outcome = { status: "failed", error: outcome.error ? `${outcome.error}; ${reason}` : reason };
  }
  return outcome;
}

/**
 * Ends the cell with its outcome, writes its rollups and keeps the host quiet for the cool-down.
 * The result first: a 24-hour cell's rollups take tens of seconds, and a shutdown's grace period
 * must not run out on them with the measured cell still "running" (a restart would fail it).
 */
export async function endCell(ctx: CellContext, outcome: CellOutcome): Promise<void> {
  const { cell, deps, signal } = ctx;
  const { env } = deps;
  // The cell's end is the write that must land (its reason, above all when the database's absence
  // is the reason): it waits at least FINISH_RETRY_MIN_MS, however short the seconds' window.
  await withDbRetry("the cell's end", () => finishCell(deps, cell.id, cell.runId, outcome), {
    log: ctx.log,
    retryMs: Math.max(env.PERFLAB_DB_RETRY_MS, FINISH_RETRY_MIN_MS),
  });
  ctx.log.info({ status: outcome.status, error: outcome.error }, "cell finished");
  await writeRollups(ctx);
  const cooldownSec = (cell.run.spec as { cooldownSec?: number }).cooldownSec ?? 0;
  if (cooldownSec > 0 && !signal?.aborted) {
    // The cell is already final; cooldown only keeps the host quiet before the next cell, and a
    // shutdown (SIGTERM) must not wait for it.
    await sleep(cooldownSec * 1000, undefined, signal ? { signal } : {}).catch((error: Error) => {
      if (error.name !== "AbortError") throw error;
    });
  }
}

/**
 * A long cell's charts read merged buckets rather than every second; derived data, so a failure
 * here only costs those charts their exact percentiles (they fall back to the seconds). Still
 * before the host is released, so the next cell is not measured beside this work.
 */
async function writeRollups({ cell, deps, log, signal }: CellContext): Promise<void> {
  // A cancel is a user's: the rollups are written. A shutdown must not spend its grace period on
  // them, and a lost host lock means another cell may be measured beside this work. Those skipped
  // are written by the backfill every worker runs before it takes a cell (as the quick start's
  // stack and compose's migrate step do).
  if (signal?.aborted && !(signal.reason instanceof CellCancelled)) {
    log.info("stopping: the cell's rollups are left to the backfill of the next worker start");
    return;
  }
  await writeCellRollups(deps.db, cell.id, { minSeconds: deps.env.PERFLAB_ROLLUP_MIN_SECONDS }).then(
    (rows) => {
      if (rows > 0) log.info({ rows }, "wrote the cell's rollups");
    },
    (error: Error) => log.warn({ err: error }, "could not write the cell's rollups"),
  );
}
