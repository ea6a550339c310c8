import { z } from "zod";
import { STORM_DEFAULT_RAMP_SEC, STORM_GAP_SEC, stormMinDuration } from "../../../k6/storm-plan.js";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { ZConnectionStormParams } from "./params.ts";

/**
 * Everything one run of k6/connection-storm.js takes: the load (the VUs that open the streams, or a
 * rate of streams opened per second; the duration the levels share; the idle seconds before the
 * first) and the storm (levels, stream, ramp). A user running the script by hand sets the same variables.
 */
export const ZConnectionStormRun = z
  .strictObject({
    ...loadRunShape,
    mcpPath: z.string().startsWith("/", "must start with /").default("/mcp"),
    ...ZConnectionStormParams.shape,
  })
  .superRefine(checkLoadModel)
  .superRefine((run, ctx) => {
    if (run.rate !== undefined && run.rampSec !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["rampSec"],
        message: "a rate sets the ramp; give one or the other",
      });
    const message = stormDurationIssue(run, run);
    if (message) ctx.addIssue({ code: "custom", path: ["durationSec"], message });
  });

/** A duration too short for the levels: each ramps, is held a second, and closes. */
export function stormDurationIssue(
  { levels, rampSec }: { levels: number[]; rampSec?: number | undefined },
  { durationSec, rate }: { durationSec: number; rate?: number | undefined },
): string | null {
  const ramp = rampSec ?? STORM_DEFAULT_RAMP_SEC;
  const least = stormMinDuration({ levels, rate: rate ?? 0, ramp, gap: STORM_GAP_SEC });
  return durationSec < least
    ? `must be at least ${least} seconds for these levels (each ramps, is held a second, and closes)`
    : null;
}
export type TConnectionStormRun = z.input<typeof ZConnectionStormRun>;

/** The script's environment variables (k6/connection-storm.js reads exactly these, see its header). */
export function connectionStormEnv(input: TConnectionStormRun): Record<string, string> {
  const run = ZConnectionStormRun.parse(input);
  return {
    ...loadEnv(run),
    MCP_PATH: run.mcpPath,
    LEVELS: run.levels.join(","),
    STREAM: run.stream,
    ...(run.rate === undefined ? { RAMP: String(run.rampSec ?? STORM_DEFAULT_RAMP_SEC) } : {}),
  };
}
