import { z } from "zod";
import { ZMcpToolCallParams } from "./catalog.ts";

/**
 * Everything one run of k6/mcp-tool-call.js takes: the load (VUs, measured duration, warm-up) and
 * the call (tool and arguments). The worker builds the script's environment from it with
 * `mcpToolCallEnv`, and a user running the script by hand sets the same variables.
 */
/** Virtual users of one load level: the bounds the matrix spec and a script run share. */
export const ZVus = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(5000, "must be at most 5000");

export const ZMcpToolCallRun = z
  .strictObject({
    target: z.url({ protocol: /^https?$/, error: "must be an http:// URL" }),
    mcpPath: z.string().startsWith("/", "must start with /").default("/mcp"),
    /** Closed model: VUs calling back to back. */
    vus: ZVus.optional(),
    /** Open model: tool calls started per second (k6's constant-arrival-rate)… */
    rate: z.number().int("must be a whole number").min(1, "must be at least 1 call per second").optional(),
    /** …from a pool of this many VUs, each with its own session (the script's default when absent). */
    maxVus: ZVus.optional(),
    durationSec: z.number().int("must be a whole number").min(1, "must be at least 1 second"),
    warmupSec: z.number().int("must be a whole number").min(0, "must not be negative").default(0),
    ...ZMcpToolCallParams.shape,
  })
  .superRefine((run, ctx) => {
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
  });
export type TMcpToolCallRun = z.input<typeof ZMcpToolCallRun>;

/** The script's environment variables (k6/mcp-tool-call.js reads exactly these, see its header). */
export function mcpToolCallEnv(input: TMcpToolCallRun): Record<string, string> {
  const run = ZMcpToolCallRun.parse(input);
  return {
    TARGET: run.target,
    MCP_PATH: run.mcpPath,
    ...(run.rate === undefined
      ? { VUS: String(run.vus) }
      : { RATE: String(run.rate), ...(run.maxVus === undefined ? {} : { MAX_VUS: String(run.maxVus) }) }),
    DURATION: String(run.durationSec),
    WARMUP: String(run.warmupSec),
    TOOL: run.tool,
    ARGS: JSON.stringify(run.arguments),
    SESSION: run.session ?? "per-vu",
  };
}
