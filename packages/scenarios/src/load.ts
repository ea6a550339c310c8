import { z } from "zod";

/** Virtual users of one load level: the bounds the matrix spec and a script run share. */
export const ZVus = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(5000, "must be at most 5000");

/**
 * The load of one script run, the same for every scenario: where (target), how much (VUs, or a rate
 * from a pool of VUs), how long (measured duration after a warm-up).
 */
export const loadRunShape = {
  target: z.url({ protocol: /^https?$/, error: "must be an http:// URL" }),
  /** Closed model: VUs running iterations back to back. */
  vus: ZVus.optional(),
  /** Open model: iterations (operations) started per second (k6's constant-arrival-rate)… */
  rate: z.number().int("must be a whole number").min(1, "must be at least 1 per second").optional(),
  /** …from a pool of this many VUs (the script's default when absent). */
  maxVus: ZVus.optional(),
  durationSec: z.number().int("must be a whole number").min(1, "must be at least 1 second"),
  warmupSec: z.number().int("must be a whole number").min(0, "must not be negative").default(0),
  /** The client's timeout of each request (TIMEOUT_MS); k6's own 60 s when absent. */
  timeoutMs: z.number().int("must be a whole number").min(1, "must be at least 1 ms").optional(),
};

type LoadRun = { vus?: number | undefined; rate?: number | undefined; maxVus?: number | undefined };

/** One load model per run: `vus` (closed) or `rate` (open), and `maxVus` only with a rate. */
export function checkLoadModel(run: LoadRun, ctx: z.RefinementCtx): void {
  if ((run.vus === undefined) === (run.rate === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["vus"],
      message: "give vus (closed model) or rate (open model)",
    });
  }
  if (run.maxVus !== undefined && run.rate === undefined) {
    ctx.addIssue({ code: "custom", path: ["maxVus"], message: "only the open model (rate) has maxVus" });
  }
}

/**
 * The environment variables of the load every script reads: TARGET, VUS or RATE (+ MAX_VUS), DURATION,
 * WARMUP, and TIMEOUT_MS when a client timeout is set.
 */
export function loadEnv(run: {
  target: string;
  vus?: number | undefined;
  rate?: number | undefined;
  maxVus?: number | undefined;
  durationSec: number;
  warmupSec: number;
  timeoutMs?: number | undefined;
}): Record<string, string> {
  return {
    TARGET: run.target,
    ...(run.rate === undefined
      ? { VUS: String(run.vus) }
      : { RATE: String(run.rate), ...(run.maxVus === undefined ? {} : { MAX_VUS: String(run.maxVus) }) }),
    DURATION: String(run.durationSec),
    WARMUP: String(run.warmupSec),
    ...(run.timeoutMs === undefined ? {} : { TIMEOUT_MS: String(run.timeoutMs) }),
  };
}
