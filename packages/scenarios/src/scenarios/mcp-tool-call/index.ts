import { defineScenario } from "../../scenario-module.ts";
import { defaultToolArguments, fixtureTools, ZMcpToolCallParams } from "./params.ts";
import { mcpToolCallEnv } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";
export * from "./sessions.ts";

/** MCP tool calls over Streamable HTTP (k6/mcp-tool-call.js): the default scenario. */
export const mcpToolCall = defineScenario({
  id: "mcp-tool-call",
  title: "MCP tool call",
  description:
    "Each VU opens an MCP session (initialize → notifications/initialized), then calls one tool in a loop.",
  script: "mcp-tool-call.js",
  params: ZMcpToolCallParams,
  defaultParams: { tool: "echo", arguments: { message: "hello" } },
  operationMethod: "tools/call",
  protocol: "mcp",
  operations: { name: "MCP tool calls", word: "call", tag: "the tool called", vuHolds: "sessions" },
  env: ({ tool, arguments: args, session, sessionsPerVu, thinkMs }, { mcpPath, ...load }) =>
    mcpToolCallEnv({ ...load, mcpPath, tool, arguments: args, session, sessionsPerVu, thinkMs }),
  needsFixtures: ({ tool }) => fixtureTools.has(tool),
  uploadParams: (call) => ({
    ...(call.tool ? { tool: call.tool } : {}),
    ...(call.arguments ? { arguments: call.arguments } : {}),
    ...(call.session ? { session: call.session } : {}),
  }),
  form: [
    { kind: "server-tool", name: "tool", label: "Tool", default: "echo" },
    {
      kind: "select",
      name: "session",
      label: "Sessions",
      options: [
        { value: "per-vu", label: "One per VU", hint: "Each VU opens one MCP session and keeps it" },
        {
          value: "per-call",
          label: "New session per call",
          hint: "Every call: initialize, notifications/initialized, tools/call, DELETE",
        },
      ],
      default: "per-vu",
      omitDefault: true,
    },
    {
      kind: "whole-number",
      name: "sessionsPerVu",
      label: "Sessions per VU",
      placeholder: "1",
      hint: "Held open and called in turn (empty: 1); with think time, what each open session costs the server",
      showWhen: { field: "session", is: "per-vu" },
    },
    {
      kind: "whole-number",
      name: "thinkMs",
      label: "Think time (ms)",
      listLabel: "Think time",
      placeholder: "0",
      hint: "Each VU's pause after every call (empty: none, calls back to back)",
    },
    {
      kind: "json",
      name: "arguments",
      id: "args",
      label: "Tool arguments (JSON)",
      listLabel: "Tool arguments",
      rows: 4,
      from: { field: "tool", value: (tool) => JSON.stringify(defaultToolArguments[tool] ?? {}, null, 2) },
    },
  ],
  cli: [
    {
      flag: "tool",
      param: "tool",
      value: "text",
      upload: "tool",
      help: {
        run: { synopsis: "--tool <name>", text: "the tool to call; --args '<json>' its arguments" },
        upload: {
          synopsis: "--tool <name> [--args '<json>'] [--session per-call]",
          text: "the call (ARGS, SESSION), so the\nupload is the same workload as a lab run of it (and a verdict matches them)",
        },
      },
    },
    { flag: "args", param: "arguments", value: "json", upload: "arguments" },
    {
      flag: "session",
      param: "session",
      value: "text",
      upload: "session",
      help: {
        run: {
          synopsis: "--session per-call",
          text: "a new MCP session for every call (default: one per VU)",
        },
      },
    },
    {
      flag: "sessions-per-vu",
      param: "sessionsPerVu",
      value: "number",
      help: {
        run: {
          synopsis: "--sessions-per-vu <n>",
          text: "hold n sessions per VU open, called in turn (with --think-ms <ms>\nbetween calls: many mostly idle agents); prints RSS per session",
        },
      },
    },
    { flag: "think-ms", param: "thinkMs", value: "number" },
  ],
});
