import { describe, expect, it } from "vitest";
import { k6Env } from "./catalog.ts";
import { loadEnv } from "./load.ts";

const load = { target: "http://127.0.0.1:8080", vus: 2, durationSec: 10, warmupSec: 0 };

describe("loadEnv", () => {
  it("sets TIMEOUT_MS only when the matrix gives a client timeout", () => {
    expect(loadEnv({ ...load, timeoutMs: 200 }).TIMEOUT_MS).toBe("200");
    expect(loadEnv(load)).not.toHaveProperty("TIMEOUT_MS");
  });

  it("reaches every scenario's script environment", () => {
    const env = k6Env("http-route", { route: "/rest/time" }, { ...load, mcpPath: "/mcp", timeoutMs: 2000 });
    expect(env).toMatchObject({ TIMEOUT_MS: "2000", ROUTE: "/rest/time", VUS: "2" });
    const tool = k6Env("mcp-tool-call", { tool: "echo" }, { ...load, mcpPath: "/mcp", timeoutMs: 2000 });
    expect(tool.TIMEOUT_MS).toBe("2000");
  });
});
