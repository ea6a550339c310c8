import { defineScenario } from "../../scenario-module.ts";
import { levelPresets, stormStreams, ZConnectionStormParams } from "./params.ts";
import { connectionStormEnv, stormDurationIssue } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";

const streamHints: Record<(typeof stormStreams)[number], string> = {
  streamable: "initialize, then GET on the MCP path with the session id: the standalone stream",
  "legacy-sse": "GET /sse of the deprecated HTTP+SSE transport (the servers' legacy-sse variants)",
};

/** Many clients each holding an SSE stream open, level after level (k6/connection-storm.js). */
export const connectionStorm = defineScenario({
  id: "connection-storm",
  title: "Open-connection storm",
  description:
    "At each level (10, 100, 1,000, 10,000…) that many clients each open an MCP session and hold an SSE stream open (the Streamable HTTP standalone GET stream, or a legacy /sse stream) for the duration, then close it: streams established, failed and dropped, time to establish and to the first event, and what each open stream costs the server.",
  script: "connection-storm.js",
  params: ZConnectionStormParams,
  defaultParams: { levels: [10] },
  operationMethod: "initialize",
  protocol: "mcp",
  operations: { name: "MCP sessions opened", word: "session", tag: "the stream", vuHolds: "streams" },
  env: ({ levels, stream, rampSec }, load) => connectionStormEnv({ ...load, levels, stream, rampSec }),
  durationIssue: stormDurationIssue,
  needsFixtures: () => false,
  uploadParams: () => ({}),
  form: [
    {
      kind: "select",
      name: "levels",
      label: "Open streams",
      options: levelPresets.map((value) => ({ value, label: value.replaceAll(",", " → ") })),
      default: levelPresets[1],
      hint: "Each level opens that many streams, holds them for the duration, then closes them",
    },
    {
      kind: "select",
      name: "stream",
      label: "Stream",
      options: stormStreams.map((value) => ({ value, label: value, hint: streamHints[value] })),
      default: "streamable",
      omitDefault: true,
    },
    { kind: "whole-number", name: "rampSec", label: "Ramp (s)", placeholder: "2" },
  ],
  cli: [
    {
      flag: "levels",
      param: "levels",
      value: "text",
      picksScenario: true,
      help: {
        run: {
          synopsis: "--levels <n,n,…>",
          text: "streams held open, level after level (connection-storm)",
        },
      },
    },
    {
      flag: "stream",
      param: "stream",
      value: "text",
      help: {
        run: { synopsis: "--stream streamable|legacy-sse", text: "the stream a connection storm holds" },
      },
    },
    { flag: "ramp", param: "rampSec", value: "number" },
  ],
});
