import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";

/**
 * Everything one run of k6/k6-script.js takes besides the user's script itself: the load and the
 * server's MCP endpoint. The user's script reads TARGET and MCP_PATH; the wrapper applies the load.
 */
export const ZK6ScriptRun = z
  .strictObject({ ...loadRunShape, mcpPath: z.string().startsWith("/", "must start with /").default("/mcp") })
  .superRefine(checkLoadModel);
export type TK6ScriptRun = z.input<typeof ZK6ScriptRun>;

/** The wrapper's environment (k6/k6-script.js and the user's script read exactly these). */
export function k6ScriptEnv(input: TK6ScriptRun): Record<string, string> {
  const run = ZK6ScriptRun.parse(input);
  return { ...loadEnv(run), MCP_PATH: run.mcpPath };
}
