import { defineScenario } from "../../scenario-module.ts";
import { MAX_MESSAGE_BYTES, requestSizeOf, ZMcpRequestSizeParams } from "./params.ts";
import { mcpRequestSizeEnv, mcpRequestSizeFiles } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";

/** echo with a request of a chosen size, 1 KiB to 1 MiB (k6/mcp-request-size.js). */
export const mcpRequestSize = defineScenario({
  id: "mcp-request-size",
  title: "MCP request size",
  description: `Each VU opens an MCP session, then calls echo in a loop with a message of the chosen size (1 to ${MAX_MESSAGE_BYTES} bytes): the request grows, and the answer with it (pad_to_bytes grows the answer alone). k6 reads the arguments from a file.`,
  script: "mcp-request-size.js",
  params: ZMcpRequestSizeParams,
  defaultParams: { messageBytes: 1024 },
  operationMethod: "tools/call",
  protocol: "mcp",
  operations: { name: "MCP tool calls", word: "call", tag: "the tool called", vuHolds: "sessions" },
  env: (_params, { mcpPath, ...load }) => mcpRequestSizeEnv({ ...load, mcpPath }),
  files: mcpRequestSizeFiles,
  needsFixtures: () => false,
  uploadParams: (call) => requestSizeOf(call.arguments),
  workload: ({ messageBytes, padToBytes }) =>
    `echo (message ${messageBytes} B${padToBytes === undefined ? "" : `, pad_to_bytes ${padToBytes}`})`,
  form: [
    {
      kind: "whole-number",
      name: "messageBytes",
      label: "Message size (bytes)",
      listLabel: "Message size",
      placeholder: "1024",
      hint: "echo's message: 1024, 10240, 102400 or 1048576 (1 MiB) to sweep as the studies did (empty: 1024)",
    },
    {
      kind: "whole-number",
      name: "padToBytes",
      label: "Answer padded to (bytes)",
      listLabel: "Answer padded to",
      placeholder: "0",
      hint: "echo's pad_to_bytes: an answer at least this long (empty: the message alone)",
    },
  ],
  cli: [
    {
      flag: "message-bytes",
      param: "messageBytes",
      value: "number",
      picksScenario: true,
      help: {
        run: {
          synopsis: "--message-bytes <n>",
          text: "echo with an n-byte message (up to 1 MiB; --pad-to-bytes <n> pads\nthe answer): the mcp-request-size scenario",
        },
      },
    },
    { flag: "pad-to-bytes", param: "padToBytes", value: "number" },
  ],
});
