import { type TWorkerPresence, workersProblem } from "@perflab/contracts";

/** What the app last learnt of the workers: their list, why it could not be read, or nothing yet. */
export type WorkersState = { workers: TWorkerPresence[] } | { error: string } | null;

/** No worker running: queued cells wait. Null when one is, or while the list is not known. */
export function queueNotice(state: WorkersState): string | null {
  if (state === null) return null;
  if ("error" in state) return `Could not tell whether a worker is running: ${state.error}`;
  if (workersProblem(state.workers, undefined)?.kind !== "no-worker") return null;
  return "No worker is running: queued cells wait until one starts (./scripts/up.sh and docker compose up each start one).";
}

/**
 * Docker chosen, workers running, but none of them reaches an engine: its cells would fail. Names
 * why the first one could not (a missing socket, an engine that does not answer).
 */
export function dockerNotice(state: WorkersState, driver: string): string | null {
  if (state === null || "error" in state) return null;
  const problem = workersProblem(state.workers, driver);
  if (problem?.kind !== "no-engine") return null;
  const { reason } = problem;
  return (
    `No running worker reaches a Docker engine${reason ? ` (${reason})` : ""}, so docker cells would fail. ` +
    "Start one (bash scripts/docker/start-dockerd.sh on this machine); workers look again every 15 s."
  );
}
