import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioCatalog } from "../../catalog.ts";
import { MAX_TOOL_ARGUMENTS_BYTES, ZMcpToolCallParams } from "./params.ts";
import { mcpToolCallEnv, ZMcpToolCallRun } from "./run.ts";
import { heldSessions, rssPerSession } from "./sessions.ts";

const k6File = (file: string) => readFileSync(path.resolve(import.meta.dirname, "../../../k6", file), "utf8");
// The script and the module of the load it imports: what k6 reads when it runs the script.
const script = `${k6File("mcp-tool-call.js")}\n${k6File("load.js")}`;
const base = { target: "http://127.0.0.1:8080", vus: 10, durationSec: 20, tool: "echo" };

describe("the mcp-tool-call scenario's parameters", () => {
  it("become the environment the k6 script reads", () => {
    const env = mcpToolCallEnv({ ...base, warmupSec: 5, arguments: { message: "hi" } });
    expect(env).toEqual({
      TARGET: "http://127.0.0.1:8080",
      MCP_PATH: "/mcp",
      VUS: "10",
      DURATION: "20",
      WARMUP: "5",
      TOOL: "echo",
      ARGS: '{"message":"hi"}',
      SESSION: "per-vu",
      SESSIONS_PER_VU: "1",
      THINK_MS: "0",
    });
    const read = new Set(
      [...script.matchAll(/__ENV\.([A-Z_]+)|positiveInt\("([A-Z_]+)"|nonNegativeInt\("([A-Z_]+)"/g)].map(
        (m) => m[1] ?? m[2] ?? m[3],
      ),
    );
    for (const name of Object.keys(env)) expect(read, name).toContain(name);
  });

  it("rejects zero or negative VUs, negative durations and a missing tool, naming the field", () => {
    const fields = (input: object) => {
      const result = ZMcpToolCallRun.safeParse(input);
      return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
    };
    expect(fields({ ...base, vus: 0 })).toEqual(["vus"]);
    expect(fields({ ...base, vus: -1 })).toEqual(["vus"]);
    expect(fields({ ...base, durationSec: -5 })).toEqual(["durationSec"]);
    expect(fields({ ...base, warmupSec: -1 })).toEqual(["warmupSec"]);
    expect(fields({ ...base, tool: "" })).toEqual(["tool"]);
    expect(fields({ ...base, target: "ftp://127.0.0.1" })).toEqual(["target"]);
    expect(fields({ ...base, arguments: "{not json" })).toEqual(["arguments"]);
  });

  it("says the same of arguments that are not JSON and of JSON that is not an object", () => {
    const messages = (args: unknown) =>
      ZMcpToolCallParams.safeParse({ tool: "echo", arguments: args }).error?.issues.map((i) => [
        i.path.join("."),
        i.message,
      ]);
    // As the form sends them (text) and as an API client may (values).
    for (const args of ["{bad", "[1,2]", "1", '"x"', "null", [1, 2], 1, "x", null, true]) {
      expect(messages(args), JSON.stringify(args)).toEqual([["arguments", "must be a JSON object"]]);
    }
    expect(messages('{"message":"x"}')).toBeUndefined();
  });

  it("bounds the arguments' JSON at 64 KiB, the ARGS variable k6 starts with", () => {
    expect(MAX_TOOL_ARGUMENTS_BYTES).toBe(64 * 1024);
    // {"message":"…"} is 14 bytes around the text.
    const sized = (bytes: number) => ({ message: "x".repeat(bytes - 14) });
    expect(JSON.stringify(sized(MAX_TOOL_ARGUMENTS_BYTES)).length).toBe(MAX_TOOL_ARGUMENTS_BYTES);
    expect(
      ZMcpToolCallParams.safeParse({ tool: "echo", arguments: sized(MAX_TOOL_ARGUMENTS_BYTES) }).success,
    ).toBe(true);
    const over = ZMcpToolCallParams.safeParse({
      tool: "echo",
      arguments: sized(MAX_TOOL_ARGUMENTS_BYTES + 1),
    });
    expect(over.success).toBe(false);
    expect(over.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["arguments", "must be at most 64 KiB as JSON (it is 65 KiB)"],
    ]);
    // Bytes, not characters: 30 000 three-byte characters are 90 000 bytes of UTF-8.
    const wide = ZMcpToolCallParams.safeParse({ tool: "echo", arguments: { message: "€".repeat(30_000) } });
    expect(wide.success).toBe(false);
    // The form's text is measured once parsed, as the worker will serialize it.
    const text = JSON.stringify(sized(200 * 1024));
    expect(ZMcpToolCallParams.safeParse({ tool: "echo", arguments: text }).error?.issues[0]?.path).toEqual([
      "arguments",
    ]);
    expect(() => mcpToolCallEnv({ ...base, arguments: sized(200 * 1024) })).toThrow(/64 KiB/);
  });

  it("calls the tool with its default arguments when none are given, and keeps the ones given", () => {
    // What the run form fills in: a call without arguments would be refused by every server.
    expect(ZMcpToolCallParams.parse({ tool: "echo" })).toEqual({
      tool: "echo",
      arguments: { message: "hello" },
    });
    expect(ZMcpToolCallParams.parse({ tool: "fibonacci", sessionsPerVu: 5 })).toEqual({
      tool: "fibonacci",
      arguments: { n: 20 },
      sessionsPerVu: 5,
    });
    // Stored in the same key order as given arguments, so equal workloads serialize alike.
    expect(JSON.stringify(ZMcpToolCallParams.parse({ thinkMs: 10, tool: "sleep" }))).toBe(
      '{"tool":"sleep","arguments":{"ms":10},"thinkMs":10}',
    );
    expect(ZMcpToolCallParams.parse({ tool: "my_tool" }).arguments).toEqual({});
    expect(ZMcpToolCallParams.parse({ tool: "echo", arguments: '{"message":"x"}' }).arguments).toEqual({
      message: "x",
    });
    expect(mcpToolCallEnv(base).ARGS).toBe('{"message":"hello"}');
    expect(mcpToolCallEnv({ ...base, tool: "get_user" }).ARGS).toBe('{"id":42}');
    expect(scenarioCatalog["mcp-tool-call"].params.parse({ tool: "transform_data" }).arguments).toEqual({
      size: 1000,
    });
  });

  it("opens a session per VU unless a new one per call is asked for, and stores only the latter", () => {
    expect(ZMcpToolCallParams.parse({ tool: "echo", arguments: {} })).toEqual({
      tool: "echo",
      arguments: {},
    });
    // The default is not stored, so workloads queued before the choice existed compare equal.
    expect(JSON.stringify(ZMcpToolCallParams.parse({ tool: "echo", session: "per-vu", arguments: {} }))).toBe(
      '{"tool":"echo","arguments":{}}',
    );
    expect(ZMcpToolCallParams.parse({ tool: "echo", session: "per-call" }).session).toBe("per-call");
    expect(mcpToolCallEnv({ ...base, session: "per-call" }).SESSION).toBe("per-call");
    expect(mcpToolCallEnv(base).SESSION).toBe("per-vu");
    const bad = ZMcpToolCallParams.safeParse({ tool: "echo", session: "per-request" });
    expect(bad.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["session", 'must be "per-vu" or "per-call"'],
    ]);
    expect(script).toMatch(/SESSION must be "per-vu" or "per-call"/);
  });

  it("holds several sessions per VU and pauses between calls; stores neither at its default", () => {
    const held = ZMcpToolCallParams.parse({ tool: "echo", sessionsPerVu: 50, thinkMs: 1000 });
    expect(held).toMatchObject({ sessionsPerVu: 50, thinkMs: 1000 });
    expect(JSON.stringify(ZMcpToolCallParams.parse({ tool: "echo", sessionsPerVu: 1, thinkMs: 0 }))).toBe(
      '{"tool":"echo","arguments":{"message":"hello"}}',
    );
    expect(mcpToolCallEnv({ ...base, sessionsPerVu: 50, thinkMs: 1000 })).toMatchObject({
      SESSIONS_PER_VU: "50",
      THINK_MS: "1000",
    });
    const issues = (input: object) =>
      ZMcpToolCallParams.safeParse({ tool: "echo", ...input }).error?.issues.map((i) => [
        i.path.join("."),
        i.message,
      ]) ?? [];
    expect(issues({ sessionsPerVu: 0 })).toEqual([["sessionsPerVu", "must be at least 1"]]);
    expect(issues({ sessionsPerVu: 1001 })).toEqual([["sessionsPerVu", "must be at most 1000"]]);
    expect(issues({ sessionsPerVu: 2.5 })).toEqual([["sessionsPerVu", "must be a whole number of sessions"]]);
    expect(issues({ thinkMs: -1 })).toEqual([["thinkMs", "must not be negative"]]);
    expect(issues({ thinkMs: 60_001 })).toEqual([["thinkMs", "must be at most 60000 ms"]]);
    // Holding sessions and a new session per call exclude each other, in the run's schema too.
    expect(issues({ session: "per-call", sessionsPerVu: 5 })[0]?.[0]).toBe("sessionsPerVu");
    expect(
      ZMcpToolCallRun.safeParse({ ...base, session: "per-call", sessionsPerVu: 5 }).error?.issues[0]?.path,
    ).toEqual(["sessionsPerVu"]);
    expect(script).toMatch(/SESSIONS_PER_VU holds sessions open/);
    const { vus: _vus, ...open } = base;
    expect(
      ZMcpToolCallRun.safeParse({ ...open, rate: 100, sessionsPerVu: 5 }).error?.issues.map((i) => i.path[0]),
    ).toEqual(["sessionsPerVu"]);
  });

  it("counts held sessions and what each costs the server, for workloads that hold them", () => {
    const params = { tool: "echo", sessionsPerVu: 100, thinkMs: 1000 };
    expect(heldSessions(params, 20)).toBe(2000);
    expect(heldSessions({ tool: "echo" }, 20)).toBe(20);
    expect(heldSessions({ tool: "echo", session: "per-call" }, 20)).toBeNull();
    expect(heldSessions({ route: "/rest/time" }, 20)).toBeNull();
    expect(heldSessions(params, null)).toBeNull();
    const mb = 1024 * 1024;
    expect(rssPerSession({ params, vus: 20, idleRssBytes: 10 * mb, rssAvgBytes: 50 * mb })).toBe(
      Math.round((40 * mb) / 2000),
    );
    // Every VU calling back to back: RSS is the load's, not the sessions'.
    expect(rssPerSession({ params: { tool: "echo" }, vus: 20, idleRssBytes: 1, rssAvgBytes: 2 })).toBeNull();
    expect(rssPerSession({ params, vus: 20, idleRssBytes: null, rssAvgBytes: 50 * mb })).toBeNull();
  });

  it("runs the open model from a rate and a VU pool instead of VUs", () => {
    const { vus: _vus, ...open } = base;
    const env = mcpToolCallEnv({ ...open, rate: 500, maxVus: 80 });
    expect(env).toMatchObject({ RATE: "500", MAX_VUS: "80" });
    expect(env).not.toHaveProperty("VUS");
    expect(mcpToolCallEnv({ ...open, rate: 500 })).not.toHaveProperty("MAX_VUS");
    const fields = (input: object) => {
      const result = ZMcpToolCallRun.safeParse(input);
      return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
    };
    expect(fields({ ...base, rate: 500 })).toEqual(["vus"]);
    expect(fields(open)).toEqual(["vus"]);
    expect(fields({ ...base, maxVus: 10 })).toEqual(["maxVus"]);
    expect(fields({ ...open, rate: 0 })).toEqual(["rate"]);
    for (const name of ["RATE", "MAX_VUS"]) expect(script).toContain(`positiveInt("${name}"`);
    expect(script).toContain('executor: "constant-arrival-rate"');
  });
});
