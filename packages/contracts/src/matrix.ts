import { z } from "zod";
import { scenarioCatalog, scenarioIds } from "./scenarios.ts";

export const driverIds = ["local", "docker"] as const;

const ZScenarioSelection = z.object({
  id: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
});

const ZLoadLevel = z.object({
  vus: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(5000, "must be at most 5000"),
});

/** The matrix as any client sends it; `createMatrixSpecSchema` adds checks against the server catalog. */
export const ZMatrixSpecInput = z.object({
  name: z.string().trim().max(120).optional(),
  servers: z.array(z.string().min(1)).min(1, "choose at least one server"),
  scenarios: z.array(ZScenarioSelection).min(1, "choose at least one scenario"),
  loadLevels: z.array(ZLoadLevel).min(1, "add at least one load level"),
  rounds: z.coerce.number().int("must be a whole number").min(1, "must be at least 1").max(20).default(1),
  durationSec: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1 second")
    .max(86_400, "must be at most 24 hours"),
  warmupSec: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(0, "must not be negative")
    .max(3_600, "must be at most 1 hour")
    .default(0),
  cooldownSec: z.coerce.number().int().min(0, "must not be negative").max(600).default(2),
  driver: z.enum(driverIds).default("local"),
  /** Resource limits per server; applied by the docker driver, recorded for every cell. */
  limits: z
    .object({
      cpus: z.coerce.number().min(0.1, "must be at least 0.1").max(256).optional(),
      memoryMb: z.coerce
        .number()
        .int("must be a whole number")
        .min(32, "must be at least 32 MB")
        .max(1_048_576)
        .optional(),
    })
    .optional(),
  git: z
    .object({
      repo: z.string().optional(),
      branch: z.string().optional(),
      commit: z.string().optional(),
      pr: z.string().optional(),
    })
    .optional(),
});

export type TMatrixSpecInput = z.input<typeof ZMatrixSpecInput>;

export type CatalogView = { servers: { name: string; tools: string[] }[] };

/**
 * The spec schema used by the form, the API and the worker. It knows the server catalog so an
 * unknown server, scenario or tool is rejected with the path of the offending field.
 */
export function createMatrixSpecSchema(catalog: CatalogView) {
  const servers = new Map(catalog.servers.map((s) => [s.name, s]));
  return ZMatrixSpecInput.superRefine((spec, ctx) => {
    spec.servers.forEach((name, i) => {
      if (!servers.has(name))
        ctx.addIssue({ code: "custom", path: ["servers", i], message: `unknown server "${name}"` });
    });
    if (new Set(spec.servers).size !== spec.servers.length) {
      ctx.addIssue({ code: "custom", path: ["servers"], message: "servers must not repeat" });
    }
    spec.scenarios.forEach((scenario, i) => {
      if (!(scenarioIds as string[]).includes(scenario.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["scenarios", i, "id"],
          message: `unknown scenario "${scenario.id}"`,
        });
        return;
      }
      const entry = scenarioCatalog[scenario.id as keyof typeof scenarioCatalog];
      const params = entry.params.safeParse(scenario.params);
      if (!params.success) {
        for (const issue of params.error.issues) {
          ctx.addIssue({
            code: "custom",
            path: ["scenarios", i, "params", ...issue.path],
            message: issue.message,
          });
        }
        return;
      }
      for (const name of spec.servers) {
        const server = servers.get(name);
        if (server && server.tools.length > 0 && !server.tools.includes(params.data.tool)) {
          ctx.addIssue({
            code: "custom",
            path: ["scenarios", i, "params", "tool"],
            message: `server "${name}" has no tool "${params.data.tool}"`,
          });
        }
      }
    });
  }).transform((spec) => ({
    ...spec,
    scenarios: spec.scenarios.map((s) => ({
      id: s.id,
      params: scenarioCatalog[s.id as keyof typeof scenarioCatalog].params.parse(s.params),
    })),
  }));
}

export type TMatrixSpec = z.output<ReturnType<typeof createMatrixSpecSchema>>;

/** One cell of the matrix: what a worker runs. Rounds are interleaved so noise spreads across servers. */
export type CellPlan = {
  index: number;
  serverName: string;
  scenario: string;
  params: Record<string, unknown>;
  vus: number;
  round: number;
};

export function expandMatrix(spec: TMatrixSpec): CellPlan[] {
  const cells: CellPlan[] = [];
  for (let round = 1; round <= spec.rounds; round++) {
    for (const scenario of spec.scenarios) {
      for (const level of spec.loadLevels) {
        for (const serverName of spec.servers) {
          cells.push({
            index: cells.length,
            serverName,
            scenario: scenario.id,
            params: scenario.params,
            vus: level.vus,
            round,
          });
        }
      }
    }
  }
  return cells;
}
