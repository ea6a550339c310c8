import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { ZMcpToolMixParams } from "./params.ts";

/**
 * Everything one run of k6/mcp-tool-mix.js takes: the load (VUs, or sessions started per second)
 * and the mix. The worker builds the script's environment (`mcpToolMixEnv`) and its mix file
 * (`mcpToolMixFiles`) from it.
 */
export const ZMcpToolMixRun = z
  .strictObject({
    ...loadRunShape,
    mcpPath: z.string().startsWith("/", "must start with /").default("/mcp"),
    ...ZMcpToolMixParams.shape,
  })
  .superRefine(checkLoadModel);
export type TMcpToolMixRun = z.input<typeof ZMcpToolMixRun>;

/** The script's environment variables (k6/mcp-tool-mix.js reads these, see its header). */
export function mcpToolMixEnv(input: TMcpToolMixRun): Record<string, string> {
  const run = ZMcpToolMixRun.parse(input);
  return { ...loadEnv(run), MCP_PATH: run.mcpPath, CALLS_PER_SESSION: String(run.callsPerSession) };
}

/** The file the script opens, by the variable that names it: the mix, arguments of up to 1 MiB included. */
export function mcpToolMixFiles(params: z.input<typeof ZMcpToolMixParams>): Record<string, string> {
  return { MIX_FILE: JSON.stringify(ZMcpToolMixParams.parse(params).tools) };
}
