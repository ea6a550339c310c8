import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mcpToolMix } from "./index.ts";
import { MAX_MIX_TOOLS, ZMcpToolMixParams } from "./params.ts";
import { mcpToolMixEnv, mcpToolMixFiles } from "./run.ts";

const k6File = (file: string) => readFileSync(path.resolve(import.meta.dirname, "../../../k6", file), "utf8");
const script = `${k6File("mcp-tool-mix.js")}\n${k6File("load.js")}`;
const load = { target: "http://127.0.0.1:8080", vus: 10, durationSec: 20, warmupSec: 5 };
const mix = [
  { tool: "echo", weight: 3 },
  { tool: "fibonacci", weight: 1 },
];
const errors = (params: unknown) =>
  ZMcpToolMixParams.safeParse(params).error?.issues.map((i) => [i.path.join("."), i.message]);

describe("the mcp-tool-mix scenario", () => {
  it("gives k6 the load and calls per session in its environment, and the mix in a file the script opens", () => {
    const env = mcpToolMixEnv({ ...load, tools: mix, callsPerSession: 4 });
    expect(env).toEqual({
      TARGET: "http://127.0.0.1:8080",
      MCP_PATH: "/mcp",
      VUS: "10",
      DURATION: "20",
      WARMUP: "5",
      CALLS_PER_SESSION: "4",
    });
    // Each tool's default arguments are filled in, as for one tool, so the stored mix is what k6 sent.
    const files = mcpToolMixFiles({ tools: mix });
    expect(JSON.parse(files.MIX_FILE!)).toEqual([
      { tool: "echo", arguments: { message: "hello" }, weight: 3 },
      { tool: "fibonacci", arguments: { n: 20 }, weight: 1 },
    ]);
    for (const name of [...Object.keys(env), ...Object.keys(files)]) {
      expect(script, name).toMatch(new RegExp(`__ENV\\.${name}\\b|(positiveInt|nonNegativeInt)\\("${name}"`));
    }
  });

  it("takes the mix as the form's JSON text or as values, weights 1 and ten calls when none are given", () => {
    const parsed = ZMcpToolMixParams.parse({ tools: '[{"tool":"sleep","arguments":{"ms":5}}]' });
    expect(parsed).toEqual({
      tools: [{ tool: "sleep", arguments: { ms: 5 }, weight: 1 }],
      callsPerSession: 10,
    });
    expect(ZMcpToolMixParams.parse(mcpToolMix.defaultParams).tools.map((t) => t.weight)).toEqual([3, 1]);
  });

  it("refuses a mix that is no list of tools, a tool twice, a bad weight or name, naming the field", () => {
    const notAMix = "must be a JSON array of { tool, weight, arguments }";
    expect(errors({ tools: "{oops" })).toEqual([["tools", notAMix]]);
    expect(errors({ tools: { tool: "echo" } })).toEqual([["tools", notAMix]]);
    expect(errors({ tools: [] })).toEqual([["tools", "must name at least one tool"]]);
    expect(errors({ tools: [{ tool: "echo" }, { tool: "echo", weight: 2 }] })).toEqual([
      ["tools.1.tool", "is in the mix twice: raise its weight"],
    ]);
    expect(errors({ tools: [{ tool: "echo", weight: 0 }] })).toEqual([
      ["tools.0.weight", "must be at least 1"],
    ]);
    expect(errors({ tools: [{ tool: "echo", weight: 1.5 }] })).toEqual([
      ["tools.0.weight", "must be a whole number"],
    ]);
    expect(errors({ tools: [{ tool: "a}b" }] })).toEqual([
      ["tools.0.tool", "must be a tool name (letters, digits, _ - .)"],
    ]);
    expect(errors({ tools: [{ tool: "echo", arguments: [1] }] })).toEqual([
      ["tools.0.arguments", "must be a JSON object"],
    ]);
    const many = Array.from({ length: MAX_MIX_TOOLS + 1 }, (_, i) => ({ tool: `t${i}` }));
    expect(errors({ tools: many })).toEqual([["tools", "must name at most 20 tools"]]);
    expect(errors({ tools: mix, callsPerSession: 0 })).toEqual([["callsPerSession", "must be at least 1"]]);
    expect(errors({ tools: mix, sessions: 2 })?.[0]?.[0]).toBe("");
  });

  it("takes arguments of 1 MiB, which reach k6 in the file, and refuses a mix much larger", () => {
    const mib = { tool: "echo", arguments: { message: "x".repeat(1024 * 1024) } };
    expect(errors({ tools: [mib, { tool: "fibonacci" }] })).toBeUndefined();
    expect(Buffer.byteLength(mcpToolMixFiles({ tools: [mib] }).MIX_FILE!)).toBeGreaterThan(1024 * 1024);
    const over = errors({ tools: [mib, { tool: "other", arguments: { message: "x".repeat(8192) } }] });
    expect(over).toEqual([["tools", "must be at most 1028 KiB as JSON (it is 1033 KiB)"]]);
  });

  it("starts the fixtures for a mix that reaches them, and names its workloads", () => {
    const params = (tools: object[]) => ZMcpToolMixParams.parse({ tools });
    expect(mcpToolMix.needsFixtures(params(mix))).toBe(false);
    expect(mcpToolMix.needsFixtures(params([...mix, { tool: "checkout" }]))).toBe(true);
    expect(mcpToolMix.workload!(params(mix))).toBe("mix echo×3 fibonacci · 10 calls per session");
    expect(mcpToolMix.uploadParams({ tool: "echo" })).toEqual({ tools: [{ tool: "echo" }] });
  });
});
