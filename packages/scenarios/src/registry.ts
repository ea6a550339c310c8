import { connectionStorm } from "./scenarios/connection-storm/index.ts";
import { httpRoute } from "./scenarios/http-route/index.ts";
import { k6Script } from "./scenarios/k6-script/index.ts";
import { mcpRequestSize } from "./scenarios/mcp-request-size/index.ts";
import { mcpToolCall } from "./scenarios/mcp-tool-call/index.ts";
import { mcpToolMix } from "./scenarios/mcp-tool-mix/index.ts";

/**
 * Every scenario perflab runs, one line each (docs/adding-a-scenario.md). The first is the default:
 * the scenario of an upload or a `perflab run` that names none, and how an unknown one is labelled.
 */
// biome-ignore format: one line per scenario, so adding one is a one-line change
export const scenarioModules = [
  mcpToolCall,
  httpRoute,
  k6Script,
  connectionStorm,
  mcpToolMix,
  mcpRequestSize,
] as const;
