import { createMatrixSpecSchema, scenarioModule, type TServerInfo } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { errorsFor, unclaimedErrors } from "@/lib/form-errors";
import { validateSpec } from "@/lib/spec-errors";
import { baseMatch, formFields, initialFormState, patchForm, toSpecInput, withParam } from "./form-state";

const server = (name: string, tools: string[]): TServerInfo => ({
  name,
  displayName: name,
  language: "Go",
  runtime: "go",
  sdk: { name: "sdk", version: "1" },
  protocols: ["mcp"],
  tools,
  base: name,
  variant: null,
  description: null,
});
const servers = [server("go", ["echo", "fibonacci"]), server("node", ["fibonacci"])];
const schema = createMatrixSpecSchema({ servers: servers.map(({ name, tools }) => ({ name, tools })) });

describe("the run form's state", () => {
  it("lists the chosen scenario's own fields between the scenario and the load model", () => {
    const labels = (scenario: string) => formFields(scenarioModule(scenario)).map((f) => f.label);
    const after = [
      "Load model",
      "Max VUs",
      "Client timeout",
      "Virtual users",
      "Duration",
      "Warm-up",
      "Rounds",
      "Adaptive rounds",
      "Max rounds",
      "Max minutes",
      "Driver",
    ];
    const limits = ["CPU limit", "Memory limit", "CPU set"];
    expect(labels("mcp-tool-call")).toEqual([
      ...[
        "Name",
        "Servers",
        "Scenario",
        "Tool",
        "Sessions",
        "Sessions per VU",
        "Think time",
        "Tool arguments",
      ],
      ...after,
      ...limits,
    ]);
    expect(labels("http-route")).toEqual(["Name", "Servers", "Scenario", "Route", ...after, ...limits]);
    expect(labels("no-such-scenario")).toEqual(["Name", "Servers", "Scenario", ...after, ...limits]);
  });

  it("starts, for every scenario, from a spec the API's schema accepts", () => {
    for (const scenario of ["mcp-tool-call", "http-route"]) {
      const form = initialFormState(servers, scenario, "local");
      const { spec, errors } = validateSpec(schema, toSpecInput(form));
      expect(errors, scenario).toEqual([]);
      expect(spec?.scenarios[0]?.id).toBe(scenario);
    }
    expect(toSpecInput(initialFormState(servers, "mcp-tool-call", "local")).scenarios).toEqual([
      {
        id: "mcp-tool-call",
        params: { tool: "echo", arguments: JSON.stringify({ message: "hello" }, null, 2) },
      },
    ]);
  });

  it("keeps servers in the catalog's order and moves the tool to one they all offer", () => {
    const form = patchForm(
      initialFormState(servers, "mcp-tool-call", "local"),
      { servers: ["node", "go"] },
      servers,
    );
    expect(form.servers).toEqual(["go", "node"]);
    expect(form.params["mcp-tool-call"]).toMatchObject({ tool: "fibonacci", arguments: '{\n  "n": 20\n}' });
    // Another scenario's fields are kept while it is not chosen.
    const http = patchForm(
      form,
      withParam({ ...form, scenario: "http-route" }, "route", "/rest/users/{id}"),
      servers,
    );
    expect(http.params["http-route"]).toEqual({ route: "/rest/users/{id}" });
    expect(http.params["mcp-tool-call"]?.tool).toBe("fibonacci");
  });

  it("sends adaptive rounds with rounds as the minimum, and the schema names a minimum of one", () => {
    const form = { ...initialFormState(servers, "mcp-tool-call", "local"), servers: ["go"], adaptive: true };
    expect(toSpecInput({ ...form, rounds: "3", maxRounds: "10", maxMinutes: " 45 " })).toMatchObject({
      rounds: "3",
      adaptive: { maxRounds: "10", maxMinutes: "45" },
    });
    expect(toSpecInput({ ...form, rounds: "3", maxMinutes: "" }).adaptive).toEqual({ maxRounds: "8" });
    expect(validateSpec(schema, toSpecInput({ ...form, rounds: "1" })).errors).toContainEqual({
      field: "rounds",
      message: "must be at least 2 with adaptive rounds (the minimum before the first look)",
    });
    expect(toSpecInput({ ...form, adaptive: false })).not.toHaveProperty("adaptive");
  });

  it("sends the client timeout only when set, and shows the API's error on it at its field", () => {
    const form = { ...initialFormState(servers, "mcp-tool-call", "local"), servers: ["go"] };
    expect(toSpecInput(form)).not.toHaveProperty("timeoutMs");
    expect(toSpecInput({ ...form, timeoutMs: "  " })).not.toHaveProperty("timeoutMs");
    const spec = validateSpec(schema, toSpecInput({ ...form, timeoutMs: " 2000 " })).spec;
    expect(spec?.timeoutMs).toBe(2000);
    const { errors } = validateSpec(schema, toSpecInput({ ...form, timeoutMs: "0" }));
    expect(errorsFor(errors, baseMatch("timeoutMs"))).toEqual([
      { field: "timeoutMs", message: "must be at least 1 ms" },
    ]);
    const fields = formFields(scenarioModule("mcp-tool-call")).map((f) => f.match);
    expect(unclaimedErrors(errors, fields)).toEqual([]);
  });
});
