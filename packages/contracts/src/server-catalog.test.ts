import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadServerCatalog, withVariants } from "./server-catalog.ts";

function serversDir(manifests: Record<string, object>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "perflab-catalog-"));
  for (const [name, manifest] of Object.entries(manifests)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, "perflab.json"), JSON.stringify(manifest));
  }
  return dir;
}

const manifest = (name: string, extra: object = {}) => ({
  name,
  displayName: `${name} server`,
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "sdk", version: "1" },
  build: { command: "true" },
  start: { command: ["./server"], env: { GOGC: "100", MCP_STATELESS: "0" } },
  tools: ["echo"],
  ...extra,
});

describe("server variants", () => {
  it("follow their server, named <server>:<variant>, with the variant's environment over the manifest's", () => {
    const dir = serversDir({
      a: manifest("a", {
        variants: {
          stateless: { displayName: "stateless", description: "No sessions.", env: { MCP_STATELESS: "1" } },
        },
      }),
      b: manifest("b"),
    });
    const servers = withVariants(loadServerCatalog(dir));
    expect(servers.map((s) => [s.name, s.base, s.variant])).toEqual([
      ["a", "a", null],
      ["a:stateless", "a", "stateless"],
      ["b", "b", null],
    ]);
    const variant = servers[1]!;
    expect(variant.displayName).toBe("a server · stateless");
    expect(variant.description).toBe("No sessions.");
    expect(variant.start.env).toEqual({ GOGC: "100", MCP_STATELESS: "1" });
    // Same folder and build: one image and one native build serve both.
    expect(variant.dir).toBe(servers[0]!.dir);
    expect(variant.build).toEqual(servers[0]!.build);
    expect(servers[0]!.start.env.MCP_STATELESS).toBe("0");
  });

  it("are refused with the file named when their id or fields are wrong", () => {
    const bad = serversDir({
      a: manifest("a", { variants: { "Has Space": { displayName: "x", description: "y", env: {} } } }),
    });
    expect(() => loadServerCatalog(bad)).toThrow(/a\/perflab\.json: variants\.Has Space/);
    const extra = serversDir({
      a: manifest("a", { variants: { s: { displayName: "x", description: "y", env: {}, command: ["sh"] } } }),
    });
    expect(() => loadServerCatalog(extra)).toThrow(/variants\.s/);
  });
});
