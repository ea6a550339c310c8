import { setTimeout as sleep } from "node:timers/promises";
import { workersProblem, type ZRunDetail } from "@perflab/contracts";
import type { z } from "zod";
import { call, createRetrying, labAway, verdictOf } from "./api.ts";
import type { Global } from "./args.ts";
import { EXIT, type Io } from "./io.ts";
import { printRun, printVerdict, verdictExit } from "./print.ts";

type RunDetail = z.infer<typeof ZRunDetail>;

const unfinished = new Set(["queued", "running"]);

/**
 * Says on stderr what would keep a run from running as asked: no worker on the lab (it would wait
 * in the queue, and a CI job with it), or docker chosen where no worker reaches an engine. A lab
 * that does not list its workers says nothing.
 */
async function warnAboutWorkers(io: Io, global: Global, spec: Record<string, unknown>): Promise<void> {
  type Listed = { workers: { docker: { reachable: boolean; error: string | null } }[] };
  let workers: Listed["workers"];
  try {
    workers = (await call<Listed>(global, "/api/v1/workers")).workers;
  } catch {
    return;
  }
  const problem = workersProblem(workers, spec.driver as string | undefined);
  if (problem?.kind === "no-worker") {
    io.err("no worker is running on this lab: the run waits in the queue until one starts");
  } else if (problem?.kind === "no-engine") {
    const why = problem.reason;
    io.err(`no running worker reaches a Docker engine${why ? ` (${why})` : ""}: docker cells would fail`);
  }
}

/** Follows a queued run until it ends (its detail), or until Ctrl-C stops the waiting (null). */
async function waitForRun(io: Io, global: Global, runId: string): Promise<RunDetail | null> {
  // Ctrl-C (or a CI job's cancel, SIGINT then SIGTERM) stops the waiting, not the run: say which run
  // goes on and how to cancel it, even with --json, whose output never named it.
  const stopped = new AbortController();
  const onSignal = () => stopped.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const interrupted = new Promise<null>((resolve) =>
    stopped.signal.addEventListener("abort", () => resolve(null), { once: true }),
  );
  let progress = "";
  const runUrl = `${global.url}/runs/${runId}`;
  const away = labAway(io, global, {
    going: "; the run goes on",
    gaveUp: ` while the run was waited for; run ${runId} may go on at ${runUrl}`,
  });
  const pause = () =>
    Promise.race([sleep(2_000, undefined, { signal: stopped.signal }).catch(() => {}), interrupted]);
  try {
    for (;;) {
      // Stopped while sleeping: no request with the aborted signal.
      let polled: RunDetail | null;
      try {
        polled = stopped.signal.aborted
          ? null
          : await Promise.race([
              call<RunDetail>(global, `/api/v1/runs/${runId}`, { signal: stopped.signal }),
              interrupted,
            ]);
      } catch (error) {
        if (stopped.signal.aborted) throw error;
        away.failed(error);
        await pause();
        continue;
      }
      if (polled !== null) away.answered();
      if (polled === null) {
        io.err(
          `perflab: stopped waiting; run ${runId} goes on at ${global.url}/runs/${runId} (cancel it there, or POST /api/v1/runs/${runId}/cancel)`,
        );
        return null;
      }
      const detail = polled;
      const now = `${detail.run.cellsDone}/${detail.run.cellsTotal} cells done (${detail.run.status})`;
      if (now !== progress && !global.json) io.err(now);
      progress = now;
      if (!unfinished.has(detail.run.status)) return detail;
      await pause();
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * Queues a matrix and, unless told not to wait, follows it to the end and prints its cells (and the
 * verdict against its baseline): what `run` and `study` do once they have the spec.
 */
export async function queueAndWait(
  io: Io,
  global: Global,
  spec: Record<string, unknown>,
  options: { wait: boolean; tolerance?: number },
): Promise<number> {
  await warnAboutWorkers(io, global, spec);
  const created = await createRetrying<{ runId: string }>(io, global, "/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  if (!options.wait) {
    io.out(global.json ? JSON.stringify(created) : created.runId);
    return EXIT.ok;
  }
  if (!global.json) io.err(`queued run ${created.runId}: ${global.url}/runs/${created.runId}`);
  const detail = await waitForRun(io, global, created.runId);
  if (detail === null) return EXIT.interrupted;
  const baseline = spec.baselineRunId as string | undefined;
  const verdict = baseline ? await verdictOf(io, global, created.runId, undefined, options.tolerance) : null;
  if (global.json) io.out(JSON.stringify(verdict ? { ...detail, verdict } : detail));
  else {
    printRun(io, global, detail);
    if (verdict) printVerdict(io, verdict);
  }
  if (detail.run.status !== "succeeded") return EXIT.failed;
  return verdict ? verdictExit(verdict) : EXIT.ok;
}
