import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiDeclarations } from "./api-index";
import { API_METHODS } from "./api-spec";
import { getOpenApiDocument, operationsOf } from "./openapi";

const webDir = path.resolve(import.meta.dirname, "../..");
const apiDir = path.join(webDir, "src/app/api/v1");

/** Every route.ts under api/v1 as an OpenAPI path, with the HTTP methods its source exports. */
function routeFiles(dir = apiDir): { path: string; methods: string[] }[] {
  const found: { path: string; methods: string[] }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFiles(full));
    else if (entry.name === "route.ts") {
      const segments = path.relative(apiDir, dir).split(path.sep).filter(Boolean);
      const source = readFileSync(full, "utf8");
      found.push({
        path: ["/api/v1", ...segments.map((s) => s.replace(/^\[(\w+)\]$/, "{$1}"))].join("/"),
        methods: API_METHODS.filter((m) =>
          new RegExp(`export (const|async function|function) ${m}\\b`).test(source),
        ),
      });
    }
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

describe("the routes' declarations", () => {
  it("are indexed for every route file, as the index script writes them", () => {
    execFileSync(process.execPath, [path.join(webDir, "scripts/api-index.mjs"), "--check"]);
    expect(Object.keys(apiDeclarations).sort()).toEqual(routeFiles().map((r) => r.path));
  });

  it("declare exactly the methods each route exports, and the document has each", () => {
    const doc = getOpenApiDocument();
    for (const route of routeFiles()) {
      const declarations = apiDeclarations[route.path as keyof typeof apiDeclarations];
      const declared = operationsOf(declarations).map(([method]) => method);
      expect(declared.sort(), route.path).toEqual([...route.methods].sort());
      const documented = Object.keys(doc.paths?.[route.path] ?? {}).map((m) => m.toUpperCase());
      expect(documented.sort(), route.path).toEqual([...route.methods].sort());
    }
  });

  it("give each operation a unique id", () => {
    const ids = Object.values(apiDeclarations).flatMap((declarations) =>
      operationsOf(declarations).map(([, operation]) => operation.operationId),
    );
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
