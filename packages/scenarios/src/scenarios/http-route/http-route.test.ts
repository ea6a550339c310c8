import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { needsFixtures, scenarioCatalog } from "../../catalog.ts";
import { httpRoutes, ZHttpRouteParams } from "./params.ts";
import { httpRouteEnv, ZHttpRouteRun } from "./run.ts";

const k6File = (file: string) => readFileSync(path.resolve(import.meta.dirname, "../../../k6", file), "utf8");
// The script and the module of the load it imports: what k6 reads when it runs the script.
const script = `${k6File("http-route.js")}\n${k6File("load.js")}`;
const base = { target: "http://127.0.0.1:8080", vus: 10, durationSec: 20, route: "/rest/time" } as const;

const fields = (input: object) => {
  const result = ZHttpRouteRun.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
};

describe("the http-route scenario's parameters", () => {
  it("become the environment the k6 script reads", () => {
    const env = httpRouteEnv({ ...base, warmupSec: 5, route: "/rest/users/{id}" });
    expect(env).toEqual({
      TARGET: "http://127.0.0.1:8080",
      VUS: "10",
      DURATION: "20",
      WARMUP: "5",
      ROUTE: "/rest/users/{id}",
    });
    const read = new Set(
      [...script.matchAll(/__ENV\.([A-Z_]+)|positiveInt\("([A-Z_]+)"|nonNegativeInt\("([A-Z_]+)"/g)].map(
        (m) => m[1] ?? m[2] ?? m[3],
      ),
    );
    for (const name of Object.keys(env)) expect(read, name).toContain(name);
    for (const name of ["RATE", "MAX_VUS", "ITERATIONS", "SUMMARY_PATH"]) expect(read, name).toContain(name);
  });

  it("runs the open model from a rate and a VU pool instead of VUs", () => {
    const { vus: _vus, ...open } = base;
    const env = httpRouteEnv({ ...open, rate: 500, maxVus: 80 });
    expect(env).toMatchObject({ RATE: "500", MAX_VUS: "80", ROUTE: "/rest/time" });
    expect(env).not.toHaveProperty("VUS");
    expect(httpRouteEnv({ ...open, rate: 500 })).not.toHaveProperty("MAX_VUS");
    expect(fields({ ...base, rate: 500 })).toEqual(["vus"]);
    expect(fields(open)).toEqual(["vus"]);
    expect(fields({ ...base, maxVus: 10 })).toEqual(["maxVus"]);
    expect(fields({ ...open, rate: 0 })).toEqual(["rate"]);
    expect(script).toContain('executor: "constant-arrival-rate"');
    expect(script).toContain('executor: "constant-vus"');
  });

  it("rejects bad load values, a route that is not one of the contract's and fields of other scenarios", () => {
    expect(fields({ ...base, vus: 0 })).toEqual(["vus"]);
    expect(fields({ ...base, durationSec: -5 })).toEqual(["durationSec"]);
    expect(fields({ ...base, warmupSec: -1 })).toEqual(["warmupSec"]);
    expect(fields({ ...base, target: "ftp://127.0.0.1" })).toEqual(["target"]);
    expect(fields({ ...base, route: "/rest/users/42" })).toEqual(["route"]);
    expect(fields({ ...base, tool: "echo" })).toEqual([""]);
    expect(fields({ ...base, mcpPath: "/mcp" })).toEqual([""]);
  });

  it("names the allowed routes when the route is wrong or missing", () => {
    const message = 'must be one of "/rest/time", "/rest/users/{id}"';
    for (const params of [{ route: "/rest/nope" }, {}, { route: 42 }]) {
      const result = ZHttpRouteParams.safeParse(params);
      expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["route", message]]);
    }
    expect(ZHttpRouteParams.safeParse({ route: "/rest/time", tool: "echo" }).success).toBe(false);
    // The script refuses the same routes, with the same names.
    for (const route of httpRoutes) expect(script).toContain(`"${route}"`);
    expect(script).toMatch(/ROUTE must be one of/);
  });

  it("tags every request GET with the route template, and keeps the submetrics the worker checks", () => {
    expect(scenarioCatalog["http-route"].operationMethod).toBe("GET");
    expect(scenarioCatalog["mcp-tool-call"].operationMethod).toBe("tools/call");
    expect(script).toMatch(/method: "GET", tool: ROUTE/);
    expect(script).toContain('"http_reqs{phase:measure}": ["count>=0"]');
    expect(script).toContain('dropped_iterations: ["count>=0"]');
    expect(script).toContain('new Counter("mcp_op_errors")');
    expect(script).toContain("discardResponseBodies: true");
    // k6's `method` system tag would overwrite ours; `url` would make a time series per user id.
    expect(k6File("http-route.js")).toContain('systemTags: systemTags("url")');
    const systemTags = /return \[([^\]]*)\]\.filter/.exec(k6File("load.js"))?.[1] ?? "";
    expect(systemTags).toContain('"status"');
    expect(systemTags).not.toContain('"method"');
  });
});

describe("which cells need the fixtures", () => {
  it("is the tools that call them, and the route that reads Postgres", () => {
    expect(needsFixtures("mcp-tool-call", { tool: "get_user", arguments: { id: 1 } })).toBe(true);
    expect(needsFixtures("mcp-tool-call", { tool: "echo" })).toBe(false);
    expect(needsFixtures("http-route", { route: "/rest/users/{id}" })).toBe(true);
    expect(needsFixtures("http-route", { route: "/rest/time" })).toBe(false);
    expect(needsFixtures("http-route", { tool: "get_user" })).toBe(false);
    expect(needsFixtures("no-such-scenario", { tool: "get_user" })).toBe(false);
  });
});
