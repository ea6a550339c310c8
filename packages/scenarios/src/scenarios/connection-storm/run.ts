import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { ZConnectionStormParams } from "./params.ts";

/** The ramp when none is given: long enough that 10,000 handshakes do not all land in one second. */
export const DEFAULT_RAMP_SEC = 5;

/**
 * Everything one run of k6/connection-storm.js takes: the load (the VUs that open the streams, or a
 * rate of streams opened per second; how long each level is held; the idle seconds before the first)
 * and the storm (levels, stream, ramp). A user running the script by hand sets the same variables.
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
  });
export type TConnectionStormRun = z.input<typeof ZConnectionStormRun>;

/** The script's environment variables (k6/connection-storm.js reads exactly these, see its header). */
export function connectionStormEnv(input: TConnectionStormRun): Record<string, string> {
  const run = ZConnectionStormRun.parse(input);
  return {
    ...loadEnv(run),
    MCP_PATH: run.mcpPath,
    LEVELS: run.levels.join(","),
    STREAM: run.stream,
    ...(run.rate === undefined ? { RAMP: String(run.rampSec ?? DEFAULT_RAMP_SEC) } : {}),
  };
}
