import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyScenarioModule, k6Env, type ScenarioId, scenarioCatalog, scenarioIds } from "./catalog.ts";
import { formParams, initialFormValues } from "./form.ts";
import { scenarioModules } from "./registry.ts";

const k6Dir = path.resolve(import.meta.dirname, "../k6");
const load = { target: "http://127.0.0.1:8080", mcpPath: "/mcp", durationSec: 5, warmupSec: 1 };
/** The parameter names a scenario's schema knows. */
const paramNames = (module: AnyScenarioModule) => {
  expect(module.params, module.id).toBeInstanceOf(z.ZodObject);
  return Object.keys((module.params as z.ZodObject).shape);
};

describe.each(scenarioModules.map((m) => [m.id, m as AnyScenarioModule] as const))(
  "the registered scenario %s",
  (id, module) => {
    it("is found by its id, and its schema takes its default parameters", () => {
      expect(scenarioCatalog[id as ScenarioId]).toBe(module);
      expect(module.title && module.description && module.operationMethod).toBeTruthy();
      expect(module.operations.name && module.operations.word && module.operations.tag).toBeTruthy();
      expect(module.params.safeParse(module.defaultParams).error).toBeUndefined();
    });

    it("builds the environment its k6 script reads, in either load model", () => {
      const file = path.join(k6Dir, module.script);
      expect(existsSync(file), file).toBe(true);
      const script = `${readFileSync(file, "utf8")}\n${readFileSync(path.join(k6Dir, "load.js"), "utf8")}`;
      const read = new Set(
        [...script.matchAll(/__ENV\.([A-Z_]+)|positiveInt\("([A-Z_]+)"|nonNegativeInt\("([A-Z_]+)"/g)].map(
          (m) => m[1] ?? m[2] ?? m[3],
        ),
      );
      for (const model of [{ vus: 3 }, { rate: 50, maxVus: 4 }]) {
        const env = k6Env(id as ScenarioId, module.defaultParams, { ...load, ...model });
        expect(env).toMatchObject({ TARGET: load.target, DURATION: "5", WARMUP: "1" });
        for (const name of Object.keys(env)) expect(read, `${id} ${name}`).toContain(name);
      }
      expect(() => k6Env(id as ScenarioId, { unknownParam: 1 }, { ...load, vus: 1 })).toThrow();
    });

    it("shows form fields for parameters its schema knows, and starts from parameters it accepts", () => {
      const names = paramNames(module);
      const fields = module.form.map((f) => f.name);
      for (const field of module.form) {
        expect(names, `${id} form field ${field.name}`).toContain(field.name);
        if (field.showWhen) expect(fields).toContain(field.showWhen.field);
        if (field.kind === "json" && field.from) expect(fields).toContain(field.from.field);
        if (field.kind === "select") expect(field.options.map((o) => o.value)).toContain(field.default);
      }
      expect(new Set(module.form.map((f) => f.id ?? f.name)).size).toBe(module.form.length);
      const params = formParams(module, initialFormValues(module));
      expect(module.params.safeParse(params).error).toBeUndefined();
    });

    it("maps its CLI flags into parameters its schema accepts", () => {
      const names = paramNames(module);
      const params: Record<string, unknown> = {};
      for (const flag of module.cli) {
        expect(names, `${id} --${flag.flag}`).toContain(flag.param);
        const value = (module.defaultParams as Record<string, unknown>)[flag.param];
        if (value !== undefined) params[flag.param] = value;
      }
      expect(module.params.safeParse(params).error).toBeUndefined();
    });
  },
);

describe("the registry", () => {
  it("lists each scenario once, its CLI flags and form ids not shared with another's", () => {
    expect(new Set(scenarioIds).size).toBe(scenarioModules.length);
    const flags = scenarioModules.flatMap((m) => m.cli.map((f) => f.flag));
    expect(new Set(flags).size).toBe(flags.length);
    const scenarioPicked = scenarioModules.filter((m) => m.cli.some((f) => f.picksScenario));
    expect(scenarioPicked.map((m) => m.id)).not.toContain(scenarioModules[0].id);
  });
});
