import { defineScenario } from "../../scenario-module.ts";
import { defaultMix, mixName, mixNeedsFixtures, ZMcpToolMixParams } from "./params.ts";
import { mcpToolMixEnv, mcpToolMixFiles } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";

/** Session lifecycles calling a weighted mix of tools (k6/mcp-tool-mix.js). */
export const mcpToolMix = defineScenario({
  id: "mcp-tool-mix",
  title: "MCP tool mix (sessions)",
  description:
    "Each VU runs MCP sessions back to back: initialize → notifications/initialized → tools/list → a number of calls drawn from a weighted mix of tools → DELETE. Rates and percentiles per tool and per method; in the open model the rate is sessions started per second.",
  script: "mcp-tool-mix.js",
  params: ZMcpToolMixParams,
  defaultParams: { tools: [...defaultMix], callsPerSession: 10 },
  operationMethod: "tools/call",
  protocol: "mcp",
  operations: {
    name: "MCP tool calls",
    word: "call",
    tag: "the tool called",
    vuHolds: "sessions",
    rateWord: "session",
  },
  env: ({ tools, callsPerSession }, { mcpPath, ...load }) =>
    mcpToolMixEnv({ ...load, mcpPath, tools, callsPerSession }),
  files: mcpToolMixFiles,
  calledTools: ({ tools }) => tools.map(({ tool }, i) => ({ tool, path: ["tools", i, "tool"] })),
  needsFixtures: mixNeedsFixtures,
  // An upload of a mix names its tools in its operations' tags; the query names one tool at most.
  uploadParams: (call) =>
    call.tool
      ? { tools: [{ tool: call.tool, ...(call.arguments ? { arguments: call.arguments } : {}) }] }
      : {},
  workload: mixName,
  form: [
    {
      kind: "json",
      name: "tools",
      id: "mix",
      label: "Tool mix (JSON)",
      listLabel: "Tool mix",
      rows: 5,
      initial: JSON.stringify(defaultMix, null, 2),
      hint: "Each entry: tool, weight (how often against the others), arguments (empty: the tool's defaults)",
    },
    {
      kind: "whole-number",
      name: "callsPerSession",
      label: "Calls per session",
      placeholder: "10",
      hint: "Between the session's tools/list and its DELETE (empty: 10)",
    },
  ],
  cli: [
    {
      flag: "mix",
      param: "tools",
      value: "json",
      picksScenario: true,
      help: {
        run: {
          synopsis: "--mix '<json>'",
          text: 'sessions calling a weighted mix, e.g. \'[{"tool":"echo","weight":3},\n{"tool":"fibonacci"}]\'; --calls-per-session <n> (default 10)',
        },
      },
    },
    { flag: "calls-per-session", param: "callsPerSession", value: "number" },
  ],
});
