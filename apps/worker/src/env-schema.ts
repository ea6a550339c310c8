import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ZDriverId } from "@perflab/contracts";
import { z } from "zod";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The worker's environment, each variable with its meaning. Kept apart from its validation (env.ts)
 * so the configuration page's generator (scripts/docs/configuration.ts) can read it without an
 * environment; `docDefault` is what that page shows where the default is this machine's or unset.
 */
export const workerEnvSchema = {
  DATABASE_URL: z.string().url().describe("the lab's Postgres"),
  REDIS_URL: z.string().url().describe("the lab's Redis (AOF on, `noeviction`)"),
  PERFLAB_K6_RUNNER: ZDriverId.default("local").describe(
    "where k6 runs: the pinned binary as a process (`local`), or the same build in a container of its own (`docker`)",
  ),
  PERFLAB_K6_BIN: z
    .string()
    .default(path.join(repoRoot, ".perflab/bin/k6"))
    .describe("the k6 of the local runner"),
  PERFLAB_K6_IMAGE: z.string().optional().meta({
    description: "the k6 image of `PERFLAB_K6_RUNNER=docker`",
    docDefault: "`perflab/k6:<source hash>`, the tag `build-images.sh` gives packages/k6-output",
  }),
  PERFLAB_K6_SOURCE_DIR: z
    .string()
    .default(path.join(repoRoot, "packages/k6-output"))
    .describe("perflab's k6 build, whose source hash tags the k6 image"),
  PERFLAB_SCENARIOS_DIR: z
    .string()
    .default(path.join(repoRoot, "packages/scenarios/k6"))
    .describe("the scenarios' k6 scripts"),
  PERFLAB_SERVERS_DIR: z
    .string()
    .default(path.join(repoRoot, "servers"))
    .describe("where the server manifests are"),
  PERFLAB_FIXTURES_DIR: z
    .string()
    .default(path.join(repoRoot, "servers/fixtures"))
    .describe("the fixtures (fixture API, Redis seed, Postgres users table) the worker builds and starts"),
  PERFLAB_FIXTURE_API_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "must be an http:// or https:// URL")
    .optional()
    .meta({
      description:
        "a fixture API run outside the worker (compose's `fixtures` service), health-checked before every fixture cell",
      docDefault: "unset: the worker starts its own",
    }),
  PERFLAB_WORK_DIR: z
    .string()
    .default(path.join(repoRoot, ".perflab/work"))
    .describe("per-cell scratch (removed after each cell)"),
  PERFLAB_BUILD_DIR: z
    .string()
    .default(path.join(repoRoot, ".perflab/build"))
    .describe(
      "where `pnpm build:servers` marks the server builds under way (`<name>.building`: pid and start time); the worker holds cells while any runs, the run form names them; `<name>.failed` says why a server's last build failed (its local cells fail with it)",
    ),
  PERFLAB_HOST_ID: z.string().default(os.hostname()).meta({
    description:
      "cells on the same host id never overlap, whatever the number of workers; a worker on another machine (another kernel boot id) that comes up with an id in use on the same Redis refuses to start, naming the variable",
    docDefault: "the machine's hostname",
  }),
  PERFLAB_HEALTH_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe("how long a server may take to answer its first MCP `initialize`"),
  PERFLAB_STOP_GRACE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5_000)
    .describe("SIGTERM → SIGKILL grace when a server is stopped"),
  PERFLAB_ROLLUP_MIN_SECONDS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(600)
    .describe(
      "cells with more seconds get rollups when they end (the charts' long-cell series), uploaded cells once ingested",
    ),
  PERFLAB_DOCKER_CPUSET: z
    .enum(["0", "1"])
    .default("0")
    .transform((v) => v === "1")
    .describe("`1`: pin docker cells to their first CPUs (cpuset) as well as limiting their CPU time"),
  DOCKER_HOST: z.string().optional().meta({
    description:
      "the engine API for docker cells (unix, tcp or ssh); on another machine, k6, fixtures and a probe run there too",
    docDefault: "the local socket",
  }),
  PERFLAB_RECONCILE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe(
      "how often a worker looks for pending cells no job will run (re-enqueues queued ones, fails abandoned running ones)",
    ),
  PERFLAB_RECONCILE_GRACE_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(60_000)
    .describe(
      "how old a run must be before the reconciler repairs it (younger ones are left to the request creating them)",
    ),
  PERFLAB_DB_RETRY_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(120_000)
    .describe(
      "how long a cell's writes wait for a Postgres that does not answer (a restart, a failover) before the cell fails saying so; the seconds measured meanwhile wait in memory and are written after",
    ),
  PERFLAB_LIVE_BATCH_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60)
    .default(5)
    .describe(
      "how many measured seconds a cell gathers before writing them to Postgres and publishing them live: each write wakes the worker, Postgres, Redis and the web app beside the server measured (see [Fidelity](fidelity.md)); the live charts move in steps of this many seconds, what is stored is the same. 1 writes every second",
    ),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace"])
    .default("info")
    .describe("pino level"),
};
