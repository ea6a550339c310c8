import type { z } from "zod";
import { scenarioModules } from "./registry.ts";
import type { K6Load, ScenarioModule, UploadCall } from "./scenario-module.ts";

/** A registered scenario, its parameters' types erased: what code that serves every scenario reads. */
export type AnyScenarioModule = ScenarioModule<string, z.ZodType, string>;

type Registered = (typeof scenarioModules)[number];
export type ScenarioId = Registered["id"];

/** The registered scenarios by id, each with its own parameter types. */
export const scenarioCatalog = Object.fromEntries(scenarioModules.map((m) => [m.id, m])) as {
  [M in Registered as M["id"]]: M;
};
export const scenarioIds: ScenarioId[] = scenarioModules.map((m) => m.id);
export const defaultScenarioId: ScenarioId = scenarioModules[0].id;

export function isScenarioId(id: string): id is ScenarioId {
  return Object.hasOwn(scenarioCatalog, id);
}

/** The scenario of this id; undefined for one not registered ("toString" included). */
export function scenarioModule(id: string): AnyScenarioModule | undefined {
  return isScenarioId(id) ? (scenarioCatalog[id] as AnyScenarioModule) : undefined;
}

/** The scenario of this id, else the default one: how a cell of an unknown scenario is counted and said. */
export function scenarioOrDefault(id: string | undefined): AnyScenarioModule {
  return (
    (id === undefined ? undefined : scenarioModule(id)) ??
    (scenarioCatalog[defaultScenarioId] as AnyScenarioModule)
  );
}

/**
 * What a scenario's open-model rate starts, in running text: its operation ("500 calls/s"), or what
 * one k6 iteration is when that is several operations ("50 sessions/s" for a tool mix).
 */
export function rateWord(scenario: string | undefined, count = 2): string {
  const { word, rateWord: started = word } = scenarioOrDefault(scenario).operations;
  return count === 1 ? started : `${started}s`;
}

/**
 * The environment of a cell's k6 script: the load (the same for every scenario) and the scenario's
 * own parameters, through the scenario's env builder (which checks them again). Throws a ZodError
 * for parameters the scenario refuses.
 */
export function k6Env(scenario: ScenarioId, params: unknown, load: K6Load): Record<string, string> {
  const module = scenarioCatalog[scenario] as AnyScenarioModule;
  return module.env(module.params.parse(params), load);
}

/** The files a cell's k6 script opens, by the variable that names each (see ScenarioModule.files). */
export function k6Files(scenario: ScenarioId, params: unknown): Record<string, string> {
  const module = scenarioCatalog[scenario] as AnyScenarioModule;
  return module.files?.(module.params.parse(params)) ?? {};
}

/** The id of the workspace's stored k6 script a cell of this scenario runs, if its scenario runs one. */
export function storedScriptId(scenario: ScenarioId, params: unknown): string | undefined {
  const module = scenarioCatalog[scenario] as AnyScenarioModule;
  return module.storedScript?.(module.params.parse(params));
}

/**
 * Whether a cell of this scenario with these parameters reaches the fixtures (servers/fixtures), so
 * the worker starts and resets them before it. Unknown scenarios and parameters their scenario
 * refuses need none.
 */
export function needsFixtures(scenario: string, params: unknown): boolean {
  const module = scenarioModule(scenario);
  const parsed = module?.params.safeParse(params);
  return module !== undefined && parsed?.success === true && module.needsFixtures(parsed.data);
}

/**
 * An upload's parameters before its scenario's schema, from what its query says of the call; an
 * unknown scenario's as the default scenario's.
 */
export function uploadParams(scenario: string, call: UploadCall): Record<string, unknown> {
  return scenarioOrDefault(scenario).uploadParams(call);
}
