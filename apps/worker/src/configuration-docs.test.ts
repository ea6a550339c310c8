import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configurationPagePath, renderConfigurationPage } from "../../../scripts/docs/configuration.ts";
import { stackEnv } from "../../../scripts/docs/stack-env.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

describe("docs/configuration.md", () => {
  it("is what `pnpm run docs` renders from the env schemas (run it after changing a variable)", () => {
    const page = readFileSync(configurationPagePath, "utf8");
    expect(page, "docs/configuration.md is stale: run `pnpm run docs`").toBe(renderConfigurationPage(page));
  });

  it("documents every variable the quick start's stack reads, and declares only those", () => {
    const source = readFileSync(path.join(repoRoot, "scripts/stack.ts"), "utf8");
    const read = new Set([...source.matchAll(/process\.env\.([A-Z0-9_]+)/g)].map((m) => m[1]!));
    const declared = stackEnv.map((v) => v.name);
    const page = readFileSync(configurationPagePath, "utf8");
    for (const name of read) expect(page, `${name} is read by scripts/stack.ts`).toContain(`| \`${name}\` |`);
    for (const name of declared)
      expect([...read], `${name} is declared in scripts/docs/stack-env.ts`).toContain(name);
  });

  it("shows the defaults the quick start's stack falls back to", () => {
    const source = readFileSync(path.join(repoRoot, "scripts/stack.ts"), "utf8");
    for (const { name, default: shown } of stackEnv) {
      const start = source.indexOf(`process.env.${name}`);
      const statement = source.slice(start, source.indexOf(";", start));
      expect(statement, `the default of ${name}`).toContain(shown.replaceAll("`", ""));
    }
  });

  it("shows no path of the checkout that rendered it", () => {
    const page = readFileSync(configurationPagePath, "utf8");
    expect(page).not.toContain(repoRoot);
  });
});
