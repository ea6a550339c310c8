import { describe, expect, it } from "vitest";
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
