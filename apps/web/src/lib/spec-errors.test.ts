import { createMatrixSpecSchema } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { validateSpec } from "./spec-errors";

const schema = createMatrixSpecSchema({ servers: [{ name: "go", tools: ["echo"] }] });

/** What the run form sends: numbers as typed, the tool arguments as text. */
const input = (over: Record<string, unknown> = {}, params: Record<string, unknown> = {}) => ({
  servers: ["go"],
  scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: '{"message":"hi"}', ...params } }],
  loadLevels: [{ vus: "10" }],
  durationSec: "30",
  warmupSec: "5",
  rounds: "1",
  driver: "local",
  ...over,
});

const fields = (errors: { field: string }[]) => errors.map((e) => e.field).sort();

describe("validating the run form's spec", () => {
  it("names every invalid field in one pass, the scenario's parameters with the load fields", () => {
    const { spec, errors } = validateSpec(
      schema,
      input(
        { loadLevels: [{ vus: "abc" }], durationSec: "", rounds: "x" },
        { arguments: "{bad", thinkMs: -5, sessionsPerVu: 0 },
      ),
    );
    expect(spec).toBeNull();
    expect(fields(errors)).toEqual([
      "durationSec",
      "loadLevels.0.vus",
      "rounds",
      "scenarios.0.params.arguments",
      "scenarios.0.params.sessionsPerVu",
      "scenarios.0.params.thinkMs",
    ]);
    expect(errors.find((e) => e.field === "scenarios.0.params.arguments")?.message).toBe(
      "must be a JSON object",
    );
  });

  it("gives each error once", () => {
    const { errors } = validateSpec(schema, input({ durationSec: "0" }, { thinkMs: -5 }));
    expect(errors).toHaveLength(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: "durationSec", message: "must be at least 1 second" },
        { field: "scenarios.0.params.thinkMs", message: "must not be negative" },
      ]),
    );
  });

  it("passes a valid spec through the spec schema", () => {
    const { spec, errors } = validateSpec(schema, input());
    expect(errors).toEqual([]);
    expect(spec?.durationSec).toBe(30);
  });

  it("names a parameter the scenario does not know, and a scenario there is none of", () => {
    const { errors } = validateSpec(
      schema,
      input({
        scenarios: [
          { id: "http-route", params: { route: "/rest/time", tool: "echo" } },
          { id: "nope", params: {} },
        ],
      }),
    );
    expect(errors).toEqual([
      { field: "scenarios.0.params.tool", message: "is not a known field" },
      { field: "scenarios.1.id", message: 'unknown scenario "nope"' },
    ]);
  });
});
