import { describe, expect, it } from "vitest";
import type { AnyScenarioModule } from "./catalog.ts";
import { formFieldHint, formParams, initialFormValues, withFormValue, withServerTools } from "./form.ts";
import { httpRoute } from "./scenarios/http-route/index.ts";
import { mcpToolCall } from "./scenarios/mcp-tool-call/index.ts";

const mcp = mcpToolCall as AnyScenarioModule;
const http = httpRoute as AnyScenarioModule;

describe("a scenario's run form fields", () => {
  it("start from the first server's first tool and its default arguments", () => {
    expect(initialFormValues(mcp, "fibonacci")).toEqual({
      tool: "fibonacci",
      session: "per-vu",
      sessionsPerVu: "",
      thinkMs: "",
      arguments: JSON.stringify({ n: 20 }, null, 2),
    });
    expect(initialFormValues(mcp).tool).toBe("echo");
    expect(initialFormValues(http)).toEqual({ route: "/rest/time" });
  });

  it("reset a tool's arguments when another tool is chosen, not when the same one is", () => {
    const start = withFormValue(mcp, initialFormValues(mcp), "arguments", '{"message":"x"}');
    expect(withFormValue(mcp, start, "tool", "echo").arguments).toBe('{"message":"x"}');
    expect(withFormValue(mcp, start, "tool", "sleep").arguments).toBe(JSON.stringify({ ms: 10 }, null, 2));
  });

  it("move to the first tool the selected servers share when theirs is not among them", () => {
    const start = initialFormValues(mcp, "echo");
    expect(withServerTools(mcp, start, ["fibonacci", "echo"])).toEqual(start);
    expect(withServerTools(mcp, start, null)).toEqual(start);
    expect(withServerTools(mcp, start, [])).toEqual(start);
    const moved = withServerTools(mcp, start, ["fibonacci"]);
    expect(moved).toMatchObject({ tool: "fibonacci", arguments: JSON.stringify({ n: 20 }, null, 2) });
  });

  it("send shown fields only, leaving out blank numbers and a default the schema does not store", () => {
    const values = { ...initialFormValues(mcp), arguments: "{}" };
    expect(formParams(mcp, values)).toEqual({ tool: "echo", arguments: "{}" });
    expect(formParams(mcp, { ...values, sessionsPerVu: "5", thinkMs: " 10" })).toEqual({
      tool: "echo",
      arguments: "{}",
      sessionsPerVu: 5,
      thinkMs: 10,
    });
    // Sessions per VU is a field of one session per VU only.
    expect(formParams(mcp, { ...values, session: "per-call", sessionsPerVu: "5" })).toEqual({
      tool: "echo",
      arguments: "{}",
      session: "per-call",
    });
    expect(formParams(http, { route: "/rest/users/{id}" })).toEqual({ route: "/rest/users/{id}" });
  });

  it("hint at the chosen option, else the field's own hint", () => {
    const [, session, sessionsPerVu] = mcp.form;
    expect(formFieldHint(session!, "per-call")).toMatch(/^Every call: initialize/);
    expect(formFieldHint(session!, "per-vu")).toBe("Each VU opens one MCP session and keeps it");
    expect(formFieldHint(sessionsPerVu!, "")).toMatch(/^Held open/);
    expect(formFieldHint(http.form[0]!, "/rest/time")).toMatch(/^The trivial route/);
  });
});
