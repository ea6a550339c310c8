import { ZDriverId } from "@perflab/contracts";
import { z } from "zod";

/** A rate limit: how many requests a minute, 1 or more. */
const perMinute = (fallback: number, description: string) =>
  z.coerce.number().int().positive().default(fallback).describe(description);

/**
 * The web app's environment, each variable with its meaning. Kept apart from its validation (env.ts)
 * so the configuration page's generator (scripts/docs/configuration.ts) can read it without an
 * environment. A variable the worker shares and describes (DATABASE_URL, …) is described there once;
 * `docDefault` is what that page shows for a variable left unset.
 */
export const webEnvSchema = {
  DATABASE_URL: z.url(),
  REDIS_URL: z.url(),
  PERFLAB_SERVERS_DIR: z.string().min(1).optional().meta({ docDefault: "`servers`" }),
  PERFLAB_BUILD_DIR: z.string().min(1).optional().meta({ docDefault: "`.perflab/build`" }),
  PERFLAB_K6_BIN: z.string().min(1).optional().meta({
    description:
      "the lab's k6, which checks a stored script (`k6 inspect`, `POST /api/v1/scripts`) as the worker will run it; the worker's variable of the same name runs it",
    docDefault: "`.perflab/bin/k6`",
  }),
  PERFLAB_SCENARIOS_DIR: z.string().min(1).optional().meta({ docDefault: "`packages/scenarios/k6`" }),
  PERFLAB_DEFAULT_DRIVER: ZDriverId.default("local").describe(
    "the driver the run form starts on and the studies' quick variants use (`GET /api/v1/servers` says it as `defaultDriver`; docker-compose.yml sets `docker`: a shared lab running in containers); a matrix without `driver` still runs locally",
  ),
  PERFLAB_ACCESS: z
    .enum(["open", "token", "private"])
    .default("open")
    .describe(
      "who may change things, and read: `open` (the embedded default: one person on their own machine): anyone who reaches the lab, but listing and revoking tokens and minting admin tokens take an admin token, and tokens minted without one stop working in the other modes; a token, when sent, must be valid and is recorded on what it creates. `token` (a shared lab, docker-compose.yml's default): queueing, uploading, cancelling, sharing and managing tokens need an API token; reading stays open. `private`: as `token`, and reading needs one too, each token seeing its own workspace's runs, report permalinks that are public or unlisted staying open (see [Access model](security.md#access-model))",
    ),
  PERFLAB_ALLOWED_HOSTS: z
    .string()
    .transform((list) =>
      list
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .optional()
    .meta({
      description:
        "host names (comma-separated, no ports; IPv6 in brackets) the lab answers to; any other `Host` header gets a 400, which stops a DNS-rebinding page from reaching a lab on 127.0.0.1 under its own name (see [Security](security.md#security))",
      docDefault:
        "unset: any host, a shared lab behind its own name (the quick start on loopback: `127.0.0.1,localhost,[::1]`)",
    }),
  PERFLAB_MAX_LIVE_STREAMS: z.coerce
    .number()
    .int()
    .positive()
    .default(1000)
    .describe(
      "live run streams (the run page's server-sent events) one web process serves at once; one more gets a 503 until one closes. They share one Redis subscription per process, so viewers cost memory, not Redis connections",
    ),
  PERFLAB_RATE_LIMIT_MATRICES: perMinute(
    60,
    "matrices one API token, and one client address, may queue per minute (`POST /api/v1/matrices`); one more gets a 429 with `Retry-After` (see [Rate limits](security.md#rate-limits))",
  ),
  PERFLAB_RATE_LIMIT_UPLOADS: perMinute(
    60,
    "uploads one API token, and one client address, may send per minute (`POST /api/v1/uploads`); one more gets a 429 with `Retry-After`",
  ),
  PERFLAB_RATE_LIMIT_REPORTS: perMinute(
    60,
    "reports one API token, and one client address, may create per minute (`POST /api/v1/reports`: each freezes a snapshot of its run); one more gets a 429 with `Retry-After`",
  ),
  PERFLAB_RATE_LIMIT_TOKENS: perMinute(
    60,
    "requests to the tokens API (list, mint, revoke) one API token, and one client address, may make per minute; one more gets a 429 with `Retry-After`",
  ),
  PERFLAB_LIVE_STREAMS_PER_CLIENT: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .describe(
      "live run streams one API token, and one client address, may hold open at once across every web process (PERFLAB_MAX_LIVE_STREAMS caps each process); one more gets a 429 until one closes",
    ),
  PERFLAB_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(2 ** 30)
    .meta({
      description:
        "the largest body `POST /api/v1/uploads` takes, in bytes as sent (a gzipped body counts compressed); a larger one gets a 413 naming `(body)`, by its declared length before it is read. The body streams into Postgres in 1 MiB rows as it arrives, so the web app's memory does not grow with it (see [Uploads](uploads-and-verdicts.md#large-uploads))",
      docDefault: "`1073741824` (1 GiB)",
    }),
  PERFLAB_IDEMPOTENCY_TTL_HOURS: z.coerce
    .number()
    .int()
    .positive()
    .max(24 * 30)
    .default(24)
    .describe(
      "how long the lab remembers an `Idempotency-Key` and the answer it got: a repeat within this time returns that answer and creates nothing (see [Idempotent retries](security.md#idempotent-retries))",
    ),
};
