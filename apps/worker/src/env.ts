import { createEnv } from "@t3-oss/env-core";
import { workerEnvSchema } from "./env-schema.ts";

/** The worker's whole configuration, validated once at start (each variable's meaning: env-schema.ts). */
export const env = createEnv({
  server: workerEnvSchema,
  runtimeEnv: process.env,
  emptyStringAsUndefined: true,
});

export type WorkerEnv = typeof env;
