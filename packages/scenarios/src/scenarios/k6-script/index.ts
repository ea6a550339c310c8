import { defineScenario } from "../../scenario-module.ts";
import { EXAMPLE_SCRIPT_ID, ZK6ScriptParams } from "./params.ts";
import { k6ScriptEnv } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";

/**
 * A workspace's own k6 script (docs/custom-scripts.md): k6/k6-script.js wraps it with the lab's load,
 * phase tags, loopback-only network and summary, so its cells are measured as the built-in ones.
 */
export const k6Script = defineScenario({
  id: "k6-script",
  title: "Your own k6 script",
  description:
    "A k6 script stored in your workspace (POST /api/v1/scripts), run against each cell's server (TARGET, MCP_PATH) with the lab's load (VUS or RATE, WARMUP, DURATION): its default function is one iteration. Requests count as operations unless the script tags them with another `method`; only 127.0.0.1 is reachable.",
  script: "k6-script.js",
  params: ZK6ScriptParams,
  defaultParams: { scriptId: EXAMPLE_SCRIPT_ID },
  operationMethod: "tools/call",
  protocol: "mcp",
  operations: {
    name: "script operations",
    word: "operation",
    tag: "the script's tool tag",
    vuHolds: "iterations",
  },
  env: (_params, load) => k6ScriptEnv(load),
  needsFixtures: () => false,
  storedScript: ({ scriptId }) => scriptId,
  // An upload of a script's output says its tool in the query; there is no stored script to name.
  uploadParams: () => ({}),
  form: [
    {
      kind: "stored-script",
      name: "scriptId",
      label: "Stored k6 script",
      hint: "One of the workspace's stored scripts (`perflab script add`, POST /api/v1/scripts; docs/custom-scripts.md)",
      placeholder: "the script's id",
      // Accepted by the schema, refused by the API (no such script) until a stored one is typed.
      default: EXAMPLE_SCRIPT_ID,
    },
  ],
  cli: [
    {
      flag: "script",
      param: "scriptId",
      value: "text",
      picksScenario: true,
      help: {
        run: {
          synopsis: "--script <name|id>",
          text: "run a stored k6 script (perflab script add) as the scenario k6-script",
        },
      },
    },
  ],
});
