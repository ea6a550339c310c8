import { z } from "zod";
import { ZDriverId } from "./matrix.ts";

/**
 * Each running worker keeps one key `perflab:worker:<id>` in Redis, rewritten every few seconds
 * with a time to live, and its id in the set `perflab:workers`: a worker that stopped deletes both,
 * one that was killed lets its key lapse (and the next reader drops its id). The web
 * app lists them so a run does not sit queued with nobody to take it, and a docker run is not
 * queued where no worker reaches an engine, without anyone saying so.
 */
export const WORKER_PRESENCE_PREFIX = "perflab:worker:";
/** The set of worker ids that announced themselves; an id whose key lapsed is dropped by a reader. */
export const WORKER_PRESENCE_INDEX = "perflab:workers";
/** How long a worker's key outlives its last rewrite. */
export const WORKER_PRESENCE_TTL_MS = 15_000;

export const ZWorkerPresence = z
  .object({
    id: z.string().describe("hostId:pid:boot, unique per worker process"),
    hostId: z.string().describe("PERFLAB_HOST_ID: the machine whose cells this worker runs one at a time"),
    pid: z.number().int(),
    startedAt: z.iso.datetime(),
    k6: z.object({ version: z.string(), runner: ZDriverId }),
    docker: z
      .object({
        engine: z.enum(["local", "remote"]).describe("remote: DOCKER_HOST names another machine's engine"),
        reachable: z.boolean(),
        version: z.string().nullable().describe("The engine's version, when it answered"),
        error: z.string().nullable().describe("Why the engine did not answer, when it did not"),
        checkedAt: z.iso.datetime(),
      })
      .describe("The Docker engine as the worker last found it (checked every 15 s)"),
    cell: z
      .object({ id: z.string(), runId: z.string() })
      .nullable()
      .describe("The cell it is running or waiting to run; null when idle"),
  })
  .describe("A running worker, as it last announced itself");

export type TWorkerPresence = z.infer<typeof ZWorkerPresence>;

export const ZWorkerList = z.object({ workers: z.array(ZWorkerPresence) });

/**
 * What would keep a run on `driver` from running as asked, judged from the workers listed: none
 * running (its cells wait in the queue), or docker chosen and none reaching an engine (its cells
 * would fail; `reason` is why the first one could not). Null when nothing would. Said alike by the
 * dashboard and the `perflab` command.
 */
export function workersProblem(
  workers: readonly { docker: Pick<TWorkerPresence["docker"], "reachable" | "error"> }[],
  driver: string | undefined,
): { kind: "no-worker" } | { kind: "no-engine"; reason: string | null } | null {
  if (workers.length === 0) return { kind: "no-worker" };
  if (driver !== "docker" || workers.some((w) => w.docker.reachable)) return null;
  return { kind: "no-engine", reason: workers[0]?.docker.error ?? null };
}
