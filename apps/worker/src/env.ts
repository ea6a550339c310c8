import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The worker's whole configuration, validated once at start. */
export const env = createEnv({
  server: {
    DATABASE_URL: z.string().url(),
    REDIS_URL: z.string().url(),
    /** Where k6 runs: the pinned binary as a process (local), or the same build in a container (docker). */
    PERFLAB_K6_RUNNER: z.enum(["local", "docker"]).default("local"),
    PERFLAB_K6_BIN: z.string().default(path.join(repoRoot, ".perflab/bin/k6")),
    /** The k6 image for PERFLAB_K6_RUNNER=docker; defaults to the tag build-images.sh gives packages/k6-output. */
    PERFLAB_K6_IMAGE: z.string().optional(),
    PERFLAB_K6_SOURCE_DIR: z.string().default(path.join(repoRoot, "packages/k6-output")),
    PERFLAB_SCENARIOS_DIR: z.string().default(path.join(repoRoot, "packages/scenarios/k6")),
    PERFLAB_SERVERS_DIR: z.string().default(path.join(repoRoot, "servers")),
    PERFLAB_FIXTURES_DIR: z.string().default(path.join(repoRoot, "servers/fixtures")),
    /** A fixture API run outside the worker (compose's `fixtures` service); unset: the worker starts its own. */
    PERFLAB_FIXTURE_API_URL: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), "must be an http:// or https:// URL")
      .optional(),
    PERFLAB_WORK_DIR: z.string().default(path.join(repoRoot, ".perflab/work")),
    /** Where scripts/build-servers.ts marks the server builds under way; cells wait for them to end. */
    PERFLAB_BUILD_DIR: z.string().default(path.join(repoRoot, ".perflab/build")),
    /** Cells on the same host id never overlap, whatever the number of worker processes. */
    PERFLAB_HOST_ID: z.string().default(os.hostname()),
    PERFLAB_HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    PERFLAB_STOP_GRACE_MS: z.coerce.number().int().positive().default(5_000),
    /** Cells with more seconds than this get rollups when they end (the charts' long-cell series). */
    PERFLAB_ROLLUP_MIN_SECONDS: z.coerce.number().int().nonnegative().default(600),
    /** Pin docker cells to CPUs (cpuset) as well as limiting their CPU time. DOCKER_HOST picks the engine. */
    PERFLAB_DOCKER_CPUSET: z
      .enum(["0", "1"])
      .default("0")
      .transform((v) => v === "1"),
    /** The Docker engine (unix://, tcp:// or ssh://); unset: the default socket. */
    DOCKER_HOST: z.string().optional(),
    /**
     * Pending cells that no job will run (see reconcile.ts) are repaired every interval; runs younger
     * than the grace period are left to the request creating them.
     */
    PERFLAB_RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
    PERFLAB_RECONCILE_GRACE_MS: z.coerce.number().int().nonnegative().default(60_000),
    /**
     * How long a write keeps retrying a database that does not answer (a restart, a failover) before
     * the cell fails saying so; the seconds measured meanwhile wait in memory and are written after.
     */
    PERFLAB_DB_RETRY_MS: z.coerce.number().int().nonnegative().default(120_000),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  },
  runtimeEnv: process.env,
  emptyStringAsUndefined: true,
});

export type WorkerEnv = typeof env;
