import { ZDriverId } from "@perflab/contracts";
import { createEnv } from "@t3-oss/env-nextjs";
import { z } from "zod";

/**
 * The only place that reads process.env. `next build` imports route modules to collect their
 * config, so validation is skipped in that phase; at start-up (instrumentation.ts) a missing
 * variable stops the server with its name.
 */
export const env = createEnv({
  server: {
    DATABASE_URL: z.url(),
    REDIS_URL: z.url(),
    PERFLAB_SERVERS_DIR: z.string().min(1).optional(),
    /** Where this machine's server builds mark themselves (scripts/build-servers.ts); unset: the repo's. */
    PERFLAB_BUILD_DIR: z.string().min(1).optional(),
    /** The driver the run form starts on (a shared lab running in containers picks docker). */
    PERFLAB_DEFAULT_DRIVER: ZDriverId.default("local"),
    /**
     * Who may change things. open (the embedded default): anyone who reaches the lab; a token, when
     * sent, must be valid and is recorded on what it creates. token (a shared lab): queueing,
     * uploading, cancelling, sharing and managing tokens need an API token; reading stays open.
     * private: as token, and reading needs one too, each token seeing its own workspace's runs
     * (public and unlisted report permalinks stay open).
     */
    PERFLAB_ACCESS: z.enum(["open", "token", "private"]).default("open"),
    /**
     * Host names (comma-separated, no ports; IPv6 in brackets) the lab answers to; any other Host
     * header gets a 400, which stops a DNS-rebinding page from reaching a lab on 127.0.0.1 under its
     * own name. Unset: any host (a shared lab behind its own name). The quick start sets it when it
     * binds to loopback.
     */
    PERFLAB_ALLOWED_HOSTS: z
      .string()
      .transform((list) =>
        list
          .split(",")
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      )
      .optional(),
    /**
     * Live run streams (server-sent events) one web process serves at once; one more gets a 503
     * until one closes. They share one Redis connection, so this bounds memory, not connections.
     */
    PERFLAB_MAX_LIVE_STREAMS: z.coerce.number().int().positive().default(1000),
    /** Uploaded cells with more seconds than this get rollups (the worker has the same setting). */
    PERFLAB_ROLLUP_MIN_SECONDS: z.coerce.number().int().nonnegative().default(600),
  },
  client: {},
  experimental__runtimeEnv: {},
  emptyStringAsUndefined: true,
  skipValidation: process.env.NEXT_PHASE === "phase-production-build",
});
