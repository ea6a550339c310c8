import { describe, expect, it } from "vitest";
import { createMatrixSpecSchema, expandMatrix, expandRound, matrixEstimate, roundsLabel } from "./matrix.ts";
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

  it("takes open-model levels: a rate of tool calls per second from a pool of VUs", () => {
    const spec = schema.parse({
      ...valid,
      loadLevels: [{ rate: 500 }, { rate: "2000", maxVus: 50 }, { vus: 500 }],
    });
    // The pool's default (one VU per 5 calls per second) is stored, so the cell says what it ran.
    expect(spec.loadLevels).toEqual([{ rate: 500, maxVus: 100 }, { rate: 2000, maxVus: 50 }, { vus: 500 }]);
    expect(expandMatrix(spec).map((c) => c.loadLevel)).toEqual(spec.loadLevels);
    expect(schema.parse({ ...valid, loadLevels: [{ rate: 20 }] }).loadLevels).toEqual([
      { rate: 20, maxVus: 10 },
    ]);
  });

  it("names the field of a level that is neither, both, repeated or out of range", () => {
    expect(errorsOf({ ...valid, loadLevels: [{}] })).toContainEqual({
      field: "loadLevels.0.vus",
      message: "give vus (closed model) or rate (open model)",
    });
    expect(errorsOf({ ...valid, loadLevels: [{ vus: 10, rate: 10 }] })).toContainEqual({
      field: "loadLevels.0.rate",
      message: "give vus or rate, not both",
    });
    expect(errorsOf({ ...valid, loadLevels: [{ vus: 10, maxVus: 10 }] })).toContainEqual({
      field: "loadLevels.0.maxVus",
      message: "only an open-model level (rate) has maxVus",
    });
    expect(errorsOf({ ...valid, loadLevels: [{ rate: 0 }] })).toContainEqual({
      field: "loadLevels.0.rate",
      message: "must be at least 1 call per second",
    });
    expect(errorsOf({ ...valid, loadLevels: [{ rate: 10, maxVus: 0 }] })[0]?.field).toBe(
      "loadLevels.0.maxVus",
    );
    expect(errorsOf({ ...valid, loadLevels: [{ rate: 10 }, { vus: 10 }, { rate: 10, maxVus: 3 }] })).toEqual([
      { field: "loadLevels.2", message: "is listed twice" },
    ]);
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

  it("takes an http-route scenario on any server, without a tool, and names a wrong route", () => {
    const route = { id: "http-route", params: { route: "/rest/users/{id}" } };
    const spec = schema.parse({ ...valid, scenarios: [valid.scenarios[0], route] });
    expect(spec.scenarios[1]).toEqual(route);
    expect(expandMatrix(spec).map((c) => c.scenario)).toEqual(["mcp-tool-call", "http-route"]);
    const allowed = 'must be one of "/rest/time", "/rest/users/{id}"';
    expect(errorsOf({ ...valid, scenarios: [{ id: "http-route", params: { route: "/rest/x" } }] })).toEqual([
      { field: "scenarios.0.params.route", message: allowed },
    ]);
    expect(errorsOf({ ...valid, scenarios: [{ id: "http-route", params: {} }] })).toEqual([
      { field: "scenarios.0.params.route", message: allowed },
    ]);
    expect(
      errorsOf({
        ...valid,
        scenarios: [{ id: "http-route", params: { route: "/rest/time", tool: "echo" } }],
      }),
    ).toEqual([{ field: "scenarios.0.params.tool", message: "is not a known field" }]);
  });

  it("refuses a scenario on a server without its protocol, naming the scenario and the protocols", () => {
    const mixed = createMatrixSpecSchema({
      servers: [
        { name: "go", tools: ["echo"] },
        { name: "chi", tools: [], protocols: ["http"] },
        { name: "acme", tools: [], protocols: ["mcp"] },
      ],
    });
    const errors = (input: unknown) => {
      const result = mixed.safeParse(input);
      return result.success ? [] : fieldErrors(result.error);
    };
    const route = { id: "http-route", params: { route: "/rest/time" } };
    expect(errors({ ...valid, servers: ["go", "chi"] })).toEqual([
      {
        field: "scenarios.0.id",
        message: 'server "chi" does not serve MCP (its manifest\'s protocols: http)',
      },
    ]);
    expect(errors({ ...valid, servers: ["go", "chi"], scenarios: [route] })).toEqual([]);
    expect(errors({ ...valid, servers: ["acme"], scenarios: [valid.scenarios[0], route] })).toEqual([
      {
        field: "scenarios.1.id",
        message: 'server "acme" does not serve the plain HTTP routes (its manifest\'s protocols: mcp)',
      },
    ]);
  });

  it("refuses a tool mix naming a tool a server lacks, naming the entry", () => {
    const mix = (...tools: string[]) => ({
      id: "mcp-tool-mix",
      params: { tools: tools.map((tool) => ({ tool })) },
    });
    expect(schema.safeParse({ ...valid, scenarios: [mix("echo", "fibonacci")] }).success).toBe(true);
    expect(errorsOf({ ...valid, scenarios: [mix("echo", "checkout")] })).toEqual([
      { field: "scenarios.0.params.tools.1.tool", message: 'server "go" has no tool "checkout"' },
    ]);
  });

  it("rejects tool arguments over 64 KiB of JSON, naming the field and the limit", () => {
    const big = { message: "x".repeat(200 * 1024) };
    const second = { id: "mcp-tool-call", params: { tool: "echo", arguments: big } };
    expect(errorsOf({ ...valid, scenarios: [valid.scenarios[0], second] })).toEqual([
      { field: "scenarios.1.params.arguments", message: "must be at most 64 KiB as JSON (it is 201 KiB)" },
    ]);
    const asText = { id: "mcp-tool-call", params: { tool: "echo", arguments: JSON.stringify(big) } };
    expect(errorsOf({ ...valid, scenarios: [asText] })[0]?.field).toBe("scenarios.0.params.arguments");
  });

  it("reads numeric strings from a form but refuses booleans, arrays and blanks", () => {
    expect(schema.parse({ ...valid, loadLevels: [{ vus: "12" }], durationSec: "30" })).toMatchObject({
      loadLevels: [{ vus: 12 }],
      durationSec: 30,
    });
    for (const vus of [true, [20], "", "ten", null]) {
      expect(errorsOf({ ...valid, loadLevels: [{ vus }] })).toContainEqual({
        field: "loadLevels.0.vus",
        message: "must be a number",
      });
    }
    expect(errorsOf({ ...valid, durationSec: false })[0]).toEqual({
      field: "durationSec",
      message: "must be a number",
    });
  });

  it("names a scenario's parameter errors in the same answer as a field that is not of its type", () => {
    const fields = errorsOf({
      ...valid,
      durationSec: "abc",
      loadLevels: [{ vus: true }],
      scenarios: [
        { id: "mcp-tool-call", params: { tool: "echo", arguments: "{bad", thinkMs: -5 } },
        { id: "nope", params: {} },
      ],
    }).map((e) => e.field);
    expect(fields.sort()).toEqual([
      "durationSec",
      "loadLevels.0.vus",
      "scenarios.0.params.arguments",
      "scenarios.0.params.thinkMs",
      "scenarios.1.id",
    ]);
  });

  it("says a held session needs closed-model levels even while another parameter is wrong", () => {
    const fields = errorsOf({
      ...valid,
      loadLevels: [{ rate: 100 }],
      scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: "{bad", thinkMs: 500 } }],
    }).map((e) => e.field);
    expect(fields.sort()).toEqual(["scenarios.0.params.arguments", "scenarios.0.params.thinkMs"]);
  });

  it("does not call two levels that are each wrong a repeat", () => {
    const errors = errorsOf({ ...valid, loadLevels: [{}, {}] });
    expect(errors.map((e) => e.message)).not.toContain("is listed twice");
    expect(errors.map((e) => e.field)).toEqual(["loadLevels.0.vus", "loadLevels.1.vus"]);
  });

  it("names a misspelt or unknown field instead of dropping it", () => {
    expect(errorsOf({ ...valid, warmup: 10 })).toEqual([
      { field: "warmup", message: "is not a known field" },
    ]);
    expect(errorsOf({ ...valid, loadLevels: [{ vus: 5, rps: 100 }] })).toContainEqual({
      field: "loadLevels.0.rps",
      message: "is not a known field",
    });
    expect(errorsOf({ ...valid, git: { sha: "abc" } })).toContainEqual({
      field: "git.sha",
      message: "is not a known field",
    });
    expect(
      errorsOf({ ...valid, scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", args: {} } }] }),
    ).toContainEqual({ field: "scenarios.0.params.args", message: "is not a known field" });
  });

  it("takes a cpuset as a CPU list and names it when it is not one", () => {
    expect(schema.parse({ ...valid, driver: "docker", limits: { cpuset: "0-1,3" } }).limits).toEqual({
      cpuset: "0-1,3",
    });
    for (const cpuset of ["0-", "a", "1;2", " 0"]) {
      expect(errorsOf({ ...valid, limits: { cpuset } })).toContainEqual({
        field: "limits.cpuset",
        message: "must be a CPU list such as 0-1 or 0,2",
      });
    }
  });

  it("refuses a pull request that is not a number", () => {
    expect(errorsOf({ ...valid, git: { pr: "feature-x" } })).toContainEqual({
      field: "git.pr",
      message: "must be a pull request number",
    });
    expect(schema.parse({ ...valid, git: { pr: 42 } }).git?.pr).toBe("42");
  });

  it("trims git fields and bounds them as an upload's, refusing blanks by name", () => {
    const git = { repo: " acme/app ", branch: "main\n", commit: " abc123 ", pr: " 7 " };
    expect(schema.parse({ ...valid, git }).git).toEqual({
      repo: "acme/app",
      branch: "main",
      commit: "abc123",
      pr: "7",
    });
    for (const key of ["repo", "branch", "commit"]) {
      expect(errorsOf({ ...valid, git: { [key]: "  " } })).toContainEqual({
        field: `git.${key}`,
        message: "must not be empty",
      });
    }
    // An upload takes 500 characters of repository and branch and 200 of commit: so does a matrix.
    expect(schema.parse({ ...valid, git: { repo: "r".repeat(500), commit: "c".repeat(200) } }).git).toEqual({
      repo: "r".repeat(500),
      commit: "c".repeat(200),
    });
    expect(errorsOf({ ...valid, git: { branch: "b".repeat(501) } })).toContainEqual({
      field: "git.branch",
      message: "must be at most 500 characters",
    });
    expect(errorsOf({ ...valid, git: { commit: "c".repeat(201) } })).toContainEqual({
      field: "git.commit",
      message: "must be at most 200 characters",
    });
    // A number the run's 32-bit column cannot hold is no pull request either.
    expect(errorsOf({ ...valid, git: { pr: 10_000_000_000 } })).toContainEqual({
      field: "git.pr",
      message: "must be a pull request number",
    });
  });

  it("refuses a scenario that is the same workload as an earlier one, naming it", () => {
    const echo = { id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hello" } } };
    expect(errorsOf({ ...valid, scenarios: [echo, echo] })).toEqual([
      {
        field: "scenarios.1",
        message: "is the same workload as scenarios.0; to measure it more often, raise rounds",
      },
    ]);
    // Alike once parsed: the tool's default arguments filled in, the default session left out, keys in
    // another order.
    const same = [
      { id: "mcp-tool-call", params: { tool: "fibonacci", arguments: { n: 20 } } },
      { id: "mcp-tool-call", params: { tool: "echo" } },
      { id: "mcp-tool-call", params: { tool: "fibonacci" } },
      { id: "mcp-tool-call", params: { arguments: { message: "hello" }, tool: "echo", session: "per-vu" } },
    ];
    expect(errorsOf({ ...valid, scenarios: same }).map((e) => e.field)).toEqual([
      "scenarios.2",
      "scenarios.3",
    ]);
    // Other arguments, another session mode or another scenario are other workloads.
    const different = [
      echo,
      { id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } },
      { id: "mcp-tool-call", params: { ...echo.params, session: "per-call" } },
      { id: "http-route", params: { route: "/rest/time" } },
    ];
    expect(schema.parse({ ...valid, scenarios: different }).scenarios).toHaveLength(4);
  });

  it("holds sessions and pauses only with closed-model levels", () => {
    const holding = {
      ...valid,
      scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", sessionsPerVu: 50, thinkMs: 1000 } }],
    };
    expect(schema.parse(holding).scenarios[0]?.params).toMatchObject({ sessionsPerVu: 50, thinkMs: 1000 });
    expect(errorsOf({ ...holding, loadLevels: [{ vus: 10 }, { rate: 100 }] }).map((e) => e.field)).toEqual([
      "scenarios.0.params.sessionsPerVu",
      "scenarios.0.params.thinkMs",
    ]);
  });

  it("refuses a duration too short for a connection storm's levels, at the slowest load level", () => {
    const storm = { ...valid, scenarios: [{ id: "connection-storm", params: { levels: [10, 100] } }] };
    // Two levels: a 2 s ramp, a second held and 2 s to close each.
    expect(schema.parse({ ...storm, durationSec: 10 }).scenarios[0]?.params).toMatchObject({
      levels: [10, 100],
    });
    expect(errorsOf({ ...storm, durationSec: 9 })).toContainEqual({
      field: "durationSec",
      message:
        "must be at least 10 seconds for these levels (each ramps, is held a second, and closes) (scenarios.0)",
    });
    // At 10 streams a second, 100 take 10 s to open.
    expect(errorsOf({ ...storm, durationSec: 10, loadLevels: [{ vus: 10 }, { rate: 10 }] })).toEqual([
      {
        field: "durationSec",
        message:
          "must be at least 17 seconds for these levels (each ramps, is held a second, and closes) (scenarios.0)",
      },
    ]);
  });

  it("bounds a matrix in cells and in hours", () => {
    const many = { ...valid, loadLevels: Array.from({ length: 26 }, (_, i) => ({ vus: i + 1 })), rounds: 20 };
    expect(errorsOf(many)).toContainEqual({
      field: "loadLevels",
      message: "the matrix has 520 cells (servers × scenarios × load levels × rounds); at most 500",
    });
    const long = {
      ...valid,
      loadLevels: [{ vus: 1 }, { vus: 2 }],
      rounds: 4,
      durationSec: 86_400,
      warmupSec: 0,
    };
    expect(errorsOf(long)).toContainEqual({
      field: "durationSec",
      message: "the matrix would run for 192 hours; at most 168 (7 days) per run",
    });
    // Seven 24-hour cells fit (with the default 2 s cooldown each: just over 168 h is refused).
    expect(
      schema.safeParse({ ...valid, loadLevels: [{ vus: 1 }], rounds: 6, durationSec: 86_400, warmupSec: 0 })
        .success,
    ).toBe(true);
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
    expect(
      cells.map((c) => `${c.round}:${"vus" in c.loadLevel ? c.loadLevel.vus : "?"}:${c.serverName}`),
    ).toEqual(["1:1:go", "1:1:node", "1:5:go", "1:5:node", "2:1:go", "2:1:node", "2:5:go", "2:5:node"]);
  });

  it("takes adaptive rounds, with rounds as the minimum before the first look", () => {
    const spec = schema.parse({ ...valid, rounds: 3, adaptive: { maxRounds: "8", maxMinutes: 30 } });
    expect(spec.adaptive).toEqual({ maxRounds: 8, maxMinutes: 30 });
    // The web queues the minimum; the worker adds the rest one round at a time.
    expect(expandMatrix(spec).map((c) => c.round)).toEqual([1, 2, 3]);
    expect(matrixEstimate({ ...valid, rounds: 3, adaptive: { maxRounds: 8 } })).toMatchObject({
      cells: 8,
      rounds: { min: 3, max: 8 },
    });
    expect(roundsLabel(matrixEstimate({ ...valid, rounds: 3, adaptive: { maxRounds: 8 } }).rounds)).toBe(
      "3 to 8 rounds",
    );
    expect(roundsLabel(matrixEstimate({ ...valid, rounds: 1 }).rounds)).toBe("1 round");
  });

  it("names rounds when adaptive rounds would look after one, and each budget out of range", () => {
    expect(errorsOf({ ...valid, adaptive: { maxRounds: 5 } })).toContainEqual({
      field: "rounds",
      message: "must be at least 2 with adaptive rounds (the minimum before the first look)",
    });
    expect(errorsOf({ ...valid, rounds: 4, adaptive: { maxRounds: 3 } })).toContainEqual({
      field: "adaptive.maxRounds",
      message: "must be at least rounds (4)",
    });
    const wrong = errorsOf({
      ...valid,
      rounds: 2,
      adaptive: { maxRounds: 21, maxMinutes: 0.5, equivalencePct: 0.1, other: 1 },
    });
    expect(wrong.map((e) => e.field).sort()).toEqual([
      "adaptive.equivalencePct",
      "adaptive.maxMinutes",
      "adaptive.maxRounds",
      "adaptive.other",
    ]);
  });

  it("counts an adaptive matrix's cells at its most rounds against the limit", () => {
    const wide = { ...valid, loadLevels: Array.from({ length: 30 }, (_, i) => ({ vus: i + 1 })) };
    expect(schema.safeParse({ ...wide, rounds: 2, adaptive: { maxRounds: 16 } }).success).toBe(true);
    expect(errorsOf({ ...wide, rounds: 2, adaptive: { maxRounds: 17 } })).toContainEqual({
      field: "loadLevels",
      message: "the matrix has 510 cells (servers × scenarios × load levels × most rounds); at most 500",
    });
  });

  it("expands one later round alone, its indexes continuing the run's", () => {
    const spec = createMatrixSpecSchema({
      servers: [
        { name: "go", tools: [] },
        { name: "node", tools: [] },
      ],
    }).parse({ ...valid, servers: ["go", "node"], rounds: 2, loadLevels: [{ vus: 1 }, { vus: 5 }] });
    const next = expandRound(spec, 3, expandMatrix(spec).length);
    expect(next.map((c) => [c.index, c.round, c.serverName])).toEqual([
      [8, 3, "go"],
      [9, 3, "node"],
      [10, 3, "go"],
      [11, 3, "node"],
    ]);
    // The same cells as a fixed matrix of three rounds queues for its last round.
    expect(next).toEqual(expandMatrix({ ...spec, rounds: 3 }).slice(8));
  });
});
