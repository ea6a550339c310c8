import { z } from "zod";
import { numeric } from "./fields.ts";
import { ZVus } from "./scenarios.ts";

/** Most tool calls per second an open-model load level may ask for. */
export const MAX_RATE = 100_000;

/**
 * VUs an open-model level keeps when the spec names none: one per five calls per second (each may
 * take 200 ms before k6 runs out of VUs and drops calls), at least 10, at most 5000.
 */
export function defaultMaxVus(rate: number): number {
  return Math.min(5000, Math.max(10, Math.ceil(rate / 5)));
}

export type TLoadLevel = { vus: number } | { rate: number; maxVus: number };

/**
 * One load level: closed model `{ vus }` (that many VUs call back to back, as the studies measured
 * throughput) or open model `{ rate, maxVus? }` (k6's constant-arrival-rate: `rate` tool calls start
 * every second whatever the server's latency, from a pool of `maxVus` VUs, so a slow second shows as
 * latency or dropped calls instead of fewer requests — the model for latency targets and soaks).
 */
export const ZLoadLevel = z
  .strictObject({
    vus: numeric(ZVus).optional(),
    rate: numeric(
      z
        .number({ error: "must be a number" })
        .int("must be a whole number of calls per second")
        .min(1, "must be at least 1 call per second")
        .max(MAX_RATE, `must be at most ${MAX_RATE} calls per second`),
    ).optional(),
    maxVus: numeric(ZVus).optional(),
  })
  .superRefine((level, ctx) => {
    if (level.vus === undefined && level.rate === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["vus"],
        message: "give vus (closed model) or rate (open model)",
      });
    }
    if (level.vus !== undefined && level.rate !== undefined) {
      ctx.addIssue({ code: "custom", path: ["rate"], message: "give vus or rate, not both" });
    }
    if (level.maxVus !== undefined && level.rate === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["maxVus"],
        message: "only an open-model level (rate) has maxVus",
      });
    }
  })
  .transform(
    (level): TLoadLevel =>
      level.rate !== undefined
        ? { rate: level.rate, maxVus: level.maxVus ?? defaultMaxVus(level.rate) }
        : { vus: level.vus! },
  );

/** A stable key of a load level, for telling levels apart: "vus:50", "rate:500". */
export function loadLevelKey(level: TLoadLevel): string {
  return "rate" in level ? `rate:${level.rate}` : `vus:${level.vus}`;
}
