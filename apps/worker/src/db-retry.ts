import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "./logger.ts";

/**
 * A database that does not answer for a moment (a restart, a failover, a dropped connection), as
 * opposed to a statement it refused: only these are worth retrying. Prisma's driver adapter reports
 * them as "Can't reach database server"; pg and Postgres as a closed connection or a server that is
 * shutting down or starting up (SQLSTATE 57P01–57P03, class 08).
 */
const TRANSIENT =
  /can't reach database server|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|connection terminated|terminating connection|server closed the connection|database system is (shutting down|starting up|in recovery)|connection (timeout|closed)|timeout exceeded when trying to connect/i;
/** SQLSTATE codes of a lost or refused connection (class 08) and of a server going away (57P01–57P03). */
const TRANSIENT_CODE = /^(08[0-9A-Z]{3}|57P0[123])$/;

export function isTransientDbError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { message, code, cause } = e as { message?: unknown; code?: unknown; cause?: unknown };
    if (TRANSIENT.test(String(message ?? "")) || TRANSIENT_CODE.test(String(code ?? ""))) return true;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code) && TRANSIENT.test(code)) return true;
    e = cause;
  }
  return false;
}

/**
 * Runs `fn` (an idempotent write) until it succeeds, retrying a database that does not answer for up
 * to `retryMs` from the first failure, with backoff from 250 ms to 5 s; a refused statement, or an
 * outage longer than that, throws at once with what the database said. Each retry is logged, so an
 * outage is never silent.
 */
export async function withDbRetry<T>(
  what: string,
  fn: () => Promise<T>,
  options: { log: Logger; retryMs: number },
): Promise<T> {
  let firstFailure: number | null = null;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await fn();
      if (firstFailure !== null) {
        options.log.warn(
          { what, attempts: attempt, outageMs: Date.now() - firstFailure },
          "the database answers again; the write went through",
        );
      }
      return result;
    } catch (error) {
      if (!isTransientDbError(error)) throw error;
      firstFailure ??= Date.now();
      const waited = Date.now() - firstFailure;
      if (waited >= options.retryMs) {
        throw new Error(
          `the database did not answer for ${Math.round(waited / 1000)} s while writing ${what} (PERFLAB_DB_RETRY_MS=${options.retryMs}): ${(error as Error).message}`,
          { cause: error },
        );
      }
      options.log.warn({ what, attempt, err: error }, "the database does not answer; retrying the write");
      await sleep(Math.min(delay, options.retryMs - waited));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}
