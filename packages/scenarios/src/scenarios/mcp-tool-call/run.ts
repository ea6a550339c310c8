import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { checkSessions, withDefaultArguments, ZMcpToolCallParams } from "./params.ts";

/**
 * Everything one run of k6/mcp-tool-call.js takes: the load (VUs or a rate, measured duration,
 * warm-up) and the call (tool, arguments, sessions). The worker builds the script's environment from
 * it with `mcpToolCallEnv`, and a user running the script by hand sets the same variables.
 */
export const ZMcpToolCallRun = z
  .strictObject({
    ...loadRunShape,
    mcpPath: z.string().startsWith("/", "must start with /").default("/mcp"),
    ...ZMcpToolCallParams.shape,
  })
  .superRefine(checkLoadModel)
  .superRefine(checkSessions)
  .superRefine((run, ctx) => {
    if (run.rate === undefined) return;
    for (const key of ["sessionsPerVu", "thinkMs"] as const) {
      if (run[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "needs the closed model (VUs), not a rate" });
    }
  })
  .overwrite(withDefaultArguments);
export type TMcpToolCallRun = z.input<typeof ZMcpToolCallRun>;

/** The script's environment variables (k6/mcp-tool-call.js reads exactly these, see its header). */
export function mcpToolCallEnv(input: TMcpToolCallRun): Record<string, string> {
  const run = ZMcpToolCallRun.parse(input);
  return {
    ...loadEnv(run),
    MCP_PATH: run.mcpPath,
    TOOL: run.tool,
    ARGS: JSON.stringify(run.arguments),
    SESSION: run.session ?? "per-vu",
    SESSIONS_PER_VU: String(run.sessionsPerVu ?? 1),
    THINK_MS: String(run.thinkMs ?? 0),
  };
}
