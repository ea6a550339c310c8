import { defined, type Env, UsageError } from "./flag-values.ts";

export const DEFAULT_URL = "http://127.0.0.1:3000";

/**
 * How long a command rides out a lab that stops answering (a restart of the web app behind a CI
 * job's long run), by default (PERFLAB_RETRY sets it; 0 gives up at once): a wait's failed polls,
 * and reads (the verdict, an export), are asked again every 2 s for this long in a row, then the
 * command gives up (a wait with the run's address). A request that queues, uploads or shares is
 * asked again too, with the Idempotency-Key of its first try, so the lab creates it once.
 */
export const DEFAULT_RETRY_SEC = 120;

/** Seconds a request may take before the command gives up on the lab (PERFLAB_TIMEOUT). */
export const DEFAULT_TIMEOUT_SEC = 30;

export type Global = { url: string; json: boolean; token?: string; timeoutSec: number; retrySec: number };

/** What every command takes: the lab's address and token, --json, and how long to wait on the lab. */
export function parseGlobal(values: Record<string, unknown>, env: Env): Global {
  const timeout = env.PERFLAB_TIMEOUT || undefined;
  const timeoutSec = timeout === undefined ? DEFAULT_TIMEOUT_SEC : Number(timeout);
  if (!(timeoutSec > 0) || !Number.isFinite(timeoutSec))
    throw new UsageError(`PERFLAB_TIMEOUT must be a number of seconds above 0, got "${timeout}"`);
  const retry = env.PERFLAB_RETRY || undefined;
  const retrySec = retry === undefined ? DEFAULT_RETRY_SEC : Number(retry);
  if (!(retrySec >= 0) || !Number.isFinite(retrySec) || retry?.trim() === "")
    throw new UsageError(`PERFLAB_RETRY must be a number of seconds, 0 or more, got "${retry}"`);
  return {
    url: ((values.url as string | undefined) ?? env.PERFLAB_URL ?? DEFAULT_URL).replace(/\/+$/, ""),
    json: values.json === true,
    timeoutSec,
    retrySec,
    ...defined({ token: (values.token as string | undefined) ?? (env.PERFLAB_TOKEN || undefined) }),
  };
}
