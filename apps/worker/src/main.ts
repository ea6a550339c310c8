import { env } from "./env.ts";
import { logger } from "./logger.ts";
import { startRuntime } from "./runtime.ts";

logger.level = env.LOG_LEVEL;
// The worker takes jobs before it has finished starting (the reconciler runs after), so a signal
// that arrives during start-up still closes it properly once it is up.
const runtime = startRuntime(env, logger);

let closing = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "closing: stopping the current cell");
    runtime
      .then((r) => r.close())
      .then(
        () => process.exit(0),
        (error) => {
          logger.error({ err: error }, "close failed");
          process.exit(1);
        },
      );
  });
}
await runtime;
