// Writes src/server/api-index.ts: each API route's declarations (the schema.ts beside its route.ts)
// by OpenAPI path, which the OpenAPI document is generated from. Run by dev, build and typecheck;
// `--check` exits 1 when the file is stale, or a route has no schema.ts.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const webDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const apiDir = path.join(webDir, "src/app/api/v1");
const target = path.join(webDir, "src/server/api-index.ts");

/** Every folder under api/v1 with a route.ts, relative to it, in path order. */
function routeDirs(dir = apiDir) {
  const found = existsSync(path.join(dir, "route.ts")) ? [path.relative(apiDir, dir)] : [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...routeDirs(path.join(dir, entry.name)));
  }
  return found;
}

export function renderIndex() {
  const routes = routeDirs()
    .map((dir) => {
      const segments = dir.split(path.sep).filter(Boolean);
      if (!existsSync(path.join(apiDir, dir, "schema.ts"))) {
        throw new Error(`api/v1/${segments.join("/")}/route.ts has no schema.ts declaring its operations`);
      }
      const words = segments.flatMap((s) => s.replace(/[[\]]/g, "").split(/[^A-Za-z0-9]+/)).filter(Boolean);
      return {
        name: words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join(""),
        source: ["../app/api/v1", ...segments, "schema"].join("/"),
        path: ["/api/v1", ...segments.map((s) => s.replace(/^\[(\w+)\]$/, "{$1}"))].join("/"),
      };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return [
    "// Written by apps/web/scripts/api-index.mjs (run by dev, build and typecheck): do not edit.",
    "// A route is a route.ts with a schema.ts beside it that declares each method it exports.",
    ...[...routes]
      .sort((a, b) => (a.source < b.source ? -1 : 1))
      .map((r) => `import * as ${r.name} from "${r.source}";`),
    "",
    "/** Each route's declarations by OpenAPI path. */",
    "export const apiDeclarations = {",
    ...routes.map((r) => `  "${r.path}": ${r.name},`),
    "};",
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderIndex();
  const current = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (process.argv.includes("--check")) {
    if (current !== text) {
      console.error(`${path.relative(webDir, target)} is stale: run node apps/web/scripts/api-index.mjs`);
      process.exit(1);
    }
  } else if (current !== text) {
    writeFileSync(target, text);
  }
}
