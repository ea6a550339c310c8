import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMatrixSpecSchema } from "./matrix.ts";
import { fieldErrors } from "./problem.ts";
import { ZServerManifest } from "./server-manifest.ts";

const base = {
  name: "chi",
  displayName: "Go · chi + pgx",
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "github.com/go-chi/chi/v5", version: "v5.2.3" },
  build: { command: "./build.sh" },
  start: { command: ["./bin/server"] },
};

function errorsOf(input: unknown) {
  const result = ZServerManifest.safeParse(input);
  if (result.success) throw new Error("expected the manifest to be refused");
  return fieldErrors(result.error);
}

describe("server manifest protocols", () => {
  it("serves MCP and the plain routes when protocols is left out", () => {
    const manifest = ZServerManifest.parse({ ...base, tools: ["echo"] });
    expect(manifest.protocols).toEqual(["mcp", "http"]);
    expect(manifest.mcpPath).toBe("/mcp");
  });

  it("takes a REST-only server with neither tools nor an MCP path", () => {
    const manifest = ZServerManifest.parse({ ...base, protocols: ["http"] });
    expect(manifest.protocols).toEqual(["http"]);
    expect(manifest.tools).toEqual([]);
  });

  it("refuses tools and an MCP path on a server without mcp, naming each field", () => {
    expect(errorsOf({ ...base, protocols: ["http"], mcpPath: "/mcp", tools: ["echo"] })).toEqual([
      { field: "tools", message: 'a server without "mcp" in `protocols` has none: leave it out' },
      { field: "mcpPath", message: 'a server without "mcp" in `protocols` has none: leave it out' },
    ]);
  });

  it("refuses an empty, unknown or repeated protocol by its index", () => {
    expect(errorsOf({ ...base, protocols: [] })).toEqual([
      { field: "protocols", message: 'name at least one protocol: "mcp", "http" or both' },
    ]);
    expect(errorsOf({ ...base, protocols: ["http", "grpc"] })[0]).toEqual({
      field: "protocols.1",
      message: 'must be one of "mcp", "http"',
    });
    expect(errorsOf({ ...base, protocols: ["http", "http"] })).toEqual([
      { field: "protocols.1", message: "is listed twice" },
    ]);
  });
});

describe("the repository's manifests", () => {
  const manifest = (name: string) =>
    ZServerManifest.parse(
      JSON.parse(readFileSync(new URL(`../../../servers/${name}/perflab.json`, import.meta.url), "utf8")),
    );

  it("keep chi REST only and have go-mcp-go serve both, so a matrix refuses MCP on chi alone", () => {
    const servers = ["chi", "go-mcp-go"].map(manifest);
    expect(servers.map((s) => [s.name, s.protocols, s.tools.length])).toEqual([
      ["chi", ["http"], 0],
      ["go-mcp-go", ["mcp", "http"], 10],
    ]);
    const schema = createMatrixSpecSchema({ servers });
    const spec = (id: string, params: Record<string, unknown>) => ({
      servers: ["go-mcp-go", "chi"],
      scenarios: [{ id, params }],
      loadLevels: [{ vus: 1 }],
      durationSec: 5,
    });
    const refused = schema.safeParse(spec("mcp-tool-call", { tool: "echo" }));
    expect(refused.success ? [] : fieldErrors(refused.error)).toEqual([
      {
        field: "scenarios.0.id",
        message: `server "chi" does not serve MCP (its manifest's protocols: http)`,
      },
    ]);
    expect(schema.safeParse(spec("http-route", { route: "/rest/users/{id}" })).success).toBe(true);
  });
});
