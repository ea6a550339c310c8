import { createEnv } from "@t3-oss/env-nextjs";
import { webEnvSchema } from "./env-schema";

/**
 * The only place that reads process.env (each variable's meaning: env-schema.ts). `next build`
 * imports route modules to collect their config, so validation is skipped in that phase; at start-up
 * (instrumentation.ts) a missing variable stops the server with its name.
 */
export const env = createEnv({
  server: webEnvSchema,
  client: {},
  experimental__runtimeEnv: {},
  emptyStringAsUndefined: true,
  skipValidation: process.env.NEXT_PHASE === "phase-production-build",
});
