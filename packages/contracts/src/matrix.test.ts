import { describe, expect, it } from "vitest";
import { createMatrixSpecSchema, expandMatrix } from "./matrix.ts";
import { fieldErrors } from "./problem.ts";

const schema = createMatrixSpecSchema({ servers: [{ name: "go", tools: ["echo", "fibonacci"] }] });
const valid = {
  servers: ["go"],
  scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
  loadLevels: [{ vus: 10 }],
  durationSec: 20,
  warmupSec: 5,
};

function errorsOf(input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the spec to be rejected");
  return fieldErrors(result.error);
}

describe("matrix spec", () => {
  it("accepts a valid spec and fills defaults", () => {
    const spec = schema.parse(valid);
    expect(spec.rounds).toBe(1);
    expect(spec.driver).toBe("local");
    expect(spec.scenarios[0]?.params).toEqual({ tool: "echo", arguments: { message: "hi" } });
  });

  it("rejects zero and negative VUs naming the field", () => {
    expect(errorsOf({ ...valid, loadLevels: [{ vus: 0 }] })).toContainEqual({
      field: "loadLevels.0.vus",
      message: "must be at least 1",
    });
    expect(errorsOf({ ...valid, loadLevels: [{ vus: -3 }] })[0]?.field).toBe("loadLevels.0.vus");
  });

  it("rejects negative durations and warm-ups", () => {
    expect(errorsOf({ ...valid, durationSec: -1 })[0]?.field).toBe("durationSec");
    expect(errorsOf({ ...valid, warmupSec: -5 })).toContainEqual({
      field: "warmupSec",
      message: "must not be negative",
    });
  });

  it("rejects unknown servers and scenarios", () => {
    expect(errorsOf({ ...valid, servers: ["cobol"] })).toContainEqual({
      field: "servers.0",
      message: 'unknown server "cobol"',
    });
    expect(errorsOf({ ...valid, scenarios: [{ id: "nope", params: {} }] })).toContainEqual({
      field: "scenarios.0.id",
      message: 'unknown scenario "nope"',
    });
  });

  it("rejects a tool the server does not have, and arguments that are not JSON", () => {
    expect(
      errorsOf({ ...valid, scenarios: [{ id: "mcp-tool-call", params: { tool: "rm" } }] })[0]?.field,
    ).toBe("scenarios.0.params.tool");
    expect(
      errorsOf({
        ...valid,
        scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: "{oops" } }],
      })[0]?.field,
    ).toBe("scenarios.0.params.arguments");
  });

  it("expands rounds outermost so rounds interleave across servers", () => {
    const spec = createMatrixSpecSchema({
      servers: [
        { name: "go", tools: [] },
        { name: "node", tools: [] },
      ],
    }).parse({ ...valid, servers: ["go", "node"], rounds: 2, loadLevels: [{ vus: 1 }, { vus: 5 }] });
    const cells = expandMatrix(spec);
    expect(cells).toHaveLength(8);
    expect(cells.map((c) => `${c.round}:${c.vus}:${c.serverName}`)).toEqual([
      "1:1:go",
      "1:1:node",
      "1:5:go",
      "1:5:node",
      "2:1:go",
      "2:1:node",
      "2:5:go",
      "2:5:node",
    ]);
  });
});
