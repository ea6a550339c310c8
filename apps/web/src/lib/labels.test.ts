import { describe, expect, it } from "vitest";
import { cellLabel, levelLabel, operationsName, operationWord, sharedScenario, workloadName } from "./labels";

const cell = { index: 1, serverName: "go", vus: 10, round: 1, scenario: "mcp-tool-call" };

describe("cellLabel", () => {
  it("names the tool, so two tools on one server are told apart", () => {
    expect(cellLabel({ ...cell, params: { tool: "fibonacci", arguments: { n: 20 } } })).toBe(
      "#1 go · fibonacci · 10 VUs · r1",
    );
    expect(cellLabel({ ...cell, index: 0, params: { tool: "echo" } })).toBe("#0 go · echo · 10 VUs · r1");
  });
  it("names the arguments beyond the tool's defaults, so a payload sweep's cells are told apart", () => {
    const echo = (args: Record<string, unknown>) =>
      workloadName({ scenario: "mcp-tool-call", params: { tool: "echo", arguments: args } });
    expect(echo({ message: "hello" })).toBe("echo");
    expect(echo({ message: "hello", pad_to_bytes: 1024 })).toBe("echo (pad_to_bytes 1024)");
    expect(echo({ message: "hi" })).toBe("echo");
    expect(echo({ message: "x".repeat(10_240) })).toBe("echo (message 10240 B)");
    expect(
      workloadName({
        scenario: "mcp-tool-call",
        params: { tool: "validate_document", arguments: { document: {} } },
      }),
    ).toBe("validate_document (own document)");
    expect(
      workloadName({
        scenario: "mcp-tool-call",
        params: { tool: "fetch_upstream", arguments: { delay_ms: 0 } },
      }),
    ).toBe("fetch_upstream (delay_ms 0)");
  });
  it("says when each call opened a new session, so the two ways on one tool are told apart", () => {
    expect(cellLabel({ ...cell, params: { tool: "echo", session: "per-call" } })).toBe(
      "#1 go · echo · session per call · 10 VUs · r1",
    );
    expect(workloadName({ scenario: "mcp-tool-call", params: { tool: "echo", session: "per-vu" } })).toBe(
      "echo",
    );
  });
  it("names the request of a plain HTTP route, so two routes on one server are told apart", () => {
    const http = { ...cell, scenario: "http-route" };
    expect(workloadName({ scenario: "http-route", params: { route: "/rest/time" } })).toBe("GET /rest/time");
    expect(cellLabel({ ...http, params: { route: "/rest/users/{id}" } })).toBe(
      "#1 go · GET /rest/users/{id} · 10 VUs · r1",
    );
    expect(cellLabel({ ...http, vus: null, rate: 500, params: { route: "/rest/time" } })).toBe(
      "#1 go · GET /rest/time · 500 requests/s · r1",
    );
  });
  it("says 1 VU, not 1 VUs", () => {
    expect(cellLabel({ ...cell, vus: 1, params: { tool: "echo" } })).toBe("#1 go · echo · 1 VU · r1");
  });
  it("leaves out what a cell does not have", () => {
    expect(cellLabel({ ...cell, vus: null, params: {} })).toBe("#1 go · r1");
    expect(cellLabel({ ...cell, vus: null, rate: null, params: {} })).toBe("#1 go · r1");
  });
  it("gives an open-model cell's rate instead of VUs", () => {
    expect(cellLabel({ ...cell, vus: null, rate: 500, params: { tool: "echo" } })).toBe(
      "#1 go · echo · 500 calls/s · r1",
    );
  });
});

describe("levelLabel", () => {
  it("says a closed-model level in VUs", () => {
    expect(levelLabel({ vus: 1 })).toBe("1 VU");
    expect(levelLabel({ vus: 50, rate: null })).toBe("50 VUs");
  });
  it("says an open-model level in calls per second", () => {
    expect(levelLabel({ vus: null, rate: 500 })).toBe("500 calls/s");
    expect(levelLabel({ vus: null, rate: 1 })).toBe("1 call/s");
    expect(levelLabel({ vus: null, rate: 500, scenario: "mcp-tool-call" })).toBe("500 calls/s");
    // A tool mix's rate starts sessions of several calls each, so it is said in sessions.
    expect(levelLabel({ vus: null, rate: 50, scenario: "mcp-tool-mix" })).toBe("50 sessions/s");
    expect(levelLabel({ vus: null, rate: 1, scenario: "mcp-tool-mix" })).toBe("1 session/s");
  });
  it("says a plain HTTP route's open-model level in requests per second", () => {
    expect(levelLabel({ vus: null, rate: 500, scenario: "http-route" })).toBe("500 requests/s");
    expect(levelLabel({ vus: null, rate: 1, scenario: "http-route" })).toBe("1 request/s");
    expect(levelLabel({ vus: 50, rate: null, scenario: "http-route" })).toBe("50 VUs");
  });
  it("groups thousands as the tables print numbers", () => {
    expect(levelLabel({ vus: 5000 })).toBe("5,000 VUs");
    expect(levelLabel({ vus: null, rate: 1000 })).toBe("1,000 calls/s");
    expect(levelLabel({ vus: null, rate: 12500, scenario: "http-route" })).toBe("12,500 requests/s");
  });
  it("is null for a level of neither model, an absent rate read as none", () => {
    expect(levelLabel({ vus: null, rate: null })).toBeNull();
    expect(levelLabel({ vus: null })).toBeNull();
    expect(levelLabel({ vus: null, rate: undefined })).toBeNull();
  });
});

describe("operationWord", () => {
  it("says requests for a plain HTTP route and calls for MCP tool calls, as the run form does", () => {
    expect(operationWord("http-route")).toBe("requests");
    expect(operationWord("http-route", 1)).toBe("request");
    expect(operationWord("mcp-tool-call")).toBe("calls");
    expect(operationWord("mcp-tool-call", 1)).toBe("call");
    expect(operationWord(undefined)).toBe("calls");
    expect(operationWord("toString")).toBe("calls");
  });
  it("names a scenario's operations for headings, an unknown scenario's as MCP tool calls", () => {
    expect(operationsName("http-route")).toBe("HTTP requests");
    expect(operationsName("mcp-tool-call")).toBe("MCP tool calls");
    expect(operationsName("no-such-scenario")).toBe("MCP tool calls");
  });
  it("takes the scenario all cells share, none when they run several", () => {
    expect(sharedScenario([{ scenario: "http-route" }, { scenario: "http-route" }])).toBe("http-route");
    expect(sharedScenario([{ scenario: "http-route" }, { scenario: "mcp-tool-call" }])).toBeUndefined();
    expect(sharedScenario([])).toBeUndefined();
  });
});
