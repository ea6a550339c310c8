import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioCatalog, storedScriptId } from "../../catalog.ts";
import { ZK6ScriptParams } from "./params.ts";
import { k6ScriptEnv } from "./run.ts";

const wrapper = readFileSync(path.resolve(import.meta.dirname, "../../../k6/k6-script.js"), "utf8");
const id = "cm3k6scriptid0000000000a";
const load = { target: "http://127.0.0.1:8080", mcpPath: "/mcp", vus: 4, durationSec: 10, warmupSec: 2 };

describe("the k6-script scenario", () => {
  it("gives the script the load, the target and the MCP path, and names the stored script it runs", () => {
    expect(k6ScriptEnv(load)).toEqual({
      TARGET: load.target,
      VUS: "4",
      DURATION: "10",
      WARMUP: "2",
      MCP_PATH: "/mcp",
    });
    expect(storedScriptId("k6-script", { scriptId: id })).toBe(id);
    expect(storedScriptId("mcp-tool-call", { tool: "echo" })).toBeUndefined();
  });

  it("refuses a missing or malformed script id, naming the field", () => {
    for (const params of [{}, { scriptId: "../etc/passwd" }, { scriptId: 42 }]) {
      const result = ZK6ScriptParams.safeParse(params);
      expect(result.error?.issues.map((i) => i.path.join("."))).toEqual(["scriptId"]);
    }
    expect(ZK6ScriptParams.safeParse({ scriptId: id, tool: "echo" }).success).toBe(false);
  });

  it("counts untagged requests as operations and tags each iteration's phase", () => {
    expect(scenarioCatalog["k6-script"].operationMethod).toBe("tools/call");
    expect(wrapper).toContain('const OPERATION = "tools/call"');
    expect(wrapper).toMatch(/tags\.phase = phaseOf\(LOAD\.WARMUP\)/);
    expect(wrapper).toContain('"http_reqs{phase:measure}": ["count>=0"]');
    expect(wrapper).toContain("systemTags: systemTags()");
  });

  it("replaces the script's own load and blocks every address but loopback", () => {
    expect(wrapper).toContain("scenarios: { script: LOAD.scenario }");
    for (const name of ["vus", "duration", "stages", "iterations", "scenarios"]) {
      expect(wrapper).toContain(`${name}: _${name}`);
    }
    expect(wrapper).toContain("blacklistIPs: NOT_LOOPBACK");
    expect(wrapper).toContain('"128.0.0.0/1"');
    expect(wrapper).toContain('"::/0"');
    expect(wrapper).not.toContain('"127.0.0.0/8"');
  });

  it("fails the test when an iteration throws, rather than letting k6 log and go on", () => {
    expect(wrapper).toMatch(/catch \(error\) \{[^}]*exec\.test\.abort/);
  });
});
