import { env } from "./env.ts";
import { logger } from "./logger.ts";
import { startRuntime } from "./runtime.ts";

logger.level = env.LOG_LEVEL;
const runtime = await startRuntime(env, logger);

let closing = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "closing: stopping the current cell");
    runtime.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, "close failed");
        process.exit(1);
      },
    );
  });
}
