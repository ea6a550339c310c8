import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { requestSizeArguments, ZMcpRequestSizeParams } from "./params.ts";

/**
 * Everything one run of k6/mcp-request-size.js takes: the load and the sizes. The worker builds the
 * script's environment (`mcpRequestSizeEnv`) and its arguments file (`mcpRequestSizeFiles`) from it.
 */
export const ZMcpRequestSizeRun = z
  .strictObject({
    ...loadRunShape,
    mcpPath: z.string().startsWith("/", "must start with /").default("/mcp"),
    ...ZMcpRequestSizeParams.shape,
  })
  .superRefine(checkLoadModel);
export type TMcpRequestSizeRun = z.input<typeof ZMcpRequestSizeRun>;

/** The script's environment variables (k6/mcp-request-size.js reads these, see its header). */
export function mcpRequestSizeEnv(input: TMcpRequestSizeRun): Record<string, string> {
  const run = ZMcpRequestSizeRun.parse(input);
  return { ...loadEnv(run), MCP_PATH: run.mcpPath };
}

/**
 * The file the script opens, by the variable that names it: echo's arguments, up to 1 MiB of
 * message, which no environment variable holds (Linux caps one at 128 KiB).
 */
export function mcpRequestSizeFiles(params: z.input<typeof ZMcpRequestSizeParams>): Record<string, string> {
  return { ARGS_FILE: requestSizeArguments(ZMcpRequestSizeParams.parse(params)) };
}
