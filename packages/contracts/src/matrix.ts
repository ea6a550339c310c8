import { z } from "zod";
import { gitPrText, gitText, numeric } from "./fields.ts";
import { loadLevelKey, type TLoadLevel, ZLoadLevel } from "./load-levels.ts";
import { checkAdaptive, MAX_ROUNDS, mostRounds, ZAdaptiveRounds } from "./rounds.ts";
import { scenarioCatalog, scenarioIds, scenarioModule } from "./scenarios.ts";
import { DEFAULT_PROTOCOLS, type ServerProtocol } from "./server-manifest.ts";
import { studies } from "./studies/index.ts";

export const driverIds = ["local", "docker"] as const;
/** How the worker starts a server: a container (docker) or a child process (local). */
export const ZDriverId = z.enum(driverIds);
export type DriverId = z.infer<typeof ZDriverId>;

const number = () => z.number({ error: "must be a number" });

/** Most cells one matrix may queue, and the longest it may keep a host busy, so a typo cannot. */
export const MAX_MATRIX_CELLS = 500;
export const MAX_MATRIX_HOURS = 7 * 24;

const ZScenarioSelection = z.strictObject({
  id: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
});

const studyIds = studies.map((s) => s.id) as [string, ...string[]];

/** The matrix as any client sends it; `createMatrixSpecSchema` adds checks against the server catalog. */
export const ZMatrixSpecInput = z.strictObject({
  name: z.string().trim().max(120).optional(),
  servers: z.array(z.string().min(1)).min(1, "choose at least one server"),
  scenarios: z.array(ZScenarioSelection).min(1, "choose at least one scenario"),
  loadLevels: z.array(ZLoadLevel).min(1, "add at least one load level").max(50, "at most 50 load levels"),
  rounds: numeric(
    number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(MAX_ROUNDS, `must be at most ${MAX_ROUNDS}`),
  ).default(1),
  /** Rounds added one at a time until the servers' order is clear (then `rounds` is the minimum). */
  adaptive: ZAdaptiveRounds.optional(),
  durationSec: numeric(
    number()
      .int("must be a whole number")
      .min(1, "must be at least 1 second")
      .max(86_400, "must be at most 24 hours"),
  ),
  warmupSec: numeric(
    number()
      .int("must be a whole number")
      .min(0, "must not be negative")
      .max(3_600, "must be at most 1 hour"),
  ).default(0),
  cooldownSec: numeric(
    number().int("must be a whole number").min(0, "must not be negative").max(600, "must be at most 600"),
  ).default(2),
  /**
   * The load generator's timeout of each request, ms (k6's own 60 s when absent): a request that
   * hits it ends as a timeout (k6 error_code 1050), counted in the summary apart from errors.
   */
  timeoutMs: numeric(
    number()
      .int("must be a whole number of milliseconds")
      .min(1, "must be at least 1 ms")
      // No longer than k6's own: the cell's k6 run is given 90 s past its window to end.
      .max(60_000, "must be at most 60000 ms (k6's default)"),
  ).optional(),
  driver: ZDriverId.default("local"),
  /** A finished run to judge this one against (its verdict: GET /api/v1/runs/:id/verdict). */
  baselineRunId: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .optional(),
  /** The published study this matrix reproduces (its run shows the study's figures beside its own). */
  study: z
    .strictObject({
      id: z.enum(studyIds, { error: `must be a study of this lab: ${studyIds.join(", ")}` }),
      variant: z.enum(["published", "quick"], { error: 'must be "published" or "quick"' }),
    })
    .optional(),
  /** Resource limits per server; applied by the docker driver, recorded for every cell. */
  limits: z
    .strictObject({
      cpus: numeric(number().min(0.1, "must be at least 0.1").max(256, "must be at most 256")).optional(),
      /** CPUs the container may run on (cpuset), e.g. "0-1" or "0,2"; the engine's machine must have them. */
      cpuset: z
        .string()
        .regex(/^\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*$/, "must be a CPU list such as 0-1 or 0,2")
        .optional(),
      memoryMb: numeric(
        number()
          .int("must be a whole number")
          .min(32, "must be at least 32 MB")
          .max(1_048_576, "must be at most 1 TB"),
      ).optional(),
    })
    .optional(),
  /** Trimmed and bounded as an upload's git fields are (`gitRepo`, …): the same run list finds both. */
  git: z
    .strictObject({
      repo: gitText.repo().optional(),
      branch: gitText.branch().optional(),
      commit: gitText.commit().optional(),
      pr: z
        .union(
          [
            z
              .number()
              .int("must be a pull request number")
              .positive("must be a pull request number")
              .max(999_999_999, "must be a pull request number"),
            gitPrText(),
          ],
          {
            error: "must be a pull request number",
          },
        )
        .transform(String)
        .optional(),
    })
    .optional(),
});

export type TMatrixSpecInput = z.input<typeof ZMatrixSpecInput>;

// The adaptive-rounds shapes (the spec's block, the decision stored on a run) and the load levels
// go out with the matrix.
export { defaultMaxVus, loadLevelKey, MAX_RATE, type TLoadLevel } from "./load-levels.ts";
export * from "./rounds.ts";

/**
 * A scenario selection checked against the scenario catalog on its own, so its parameters' errors
 * (tool arguments, think time) come in the same answer as every other field's: zod runs a
 * refinement of the whole spec only once all of it is of its type, which a refinement of each
 * array element does not wait for.
 */
const ZCheckedScenario = ZScenarioSelection.superRefine((scenario, ctx) => {
  if (!(scenarioIds as string[]).includes(scenario.id)) {
    ctx.addIssue({ code: "custom", path: ["id"], message: `unknown scenario "${scenario.id}"` });
    return;
  }
  const params = scenarioCatalog[scenario.id as keyof typeof scenarioCatalog].params.safeParse(
    scenario.params,
  );
  if (params.success) return;
  for (const issue of params.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        ctx.addIssue({
          code: "custom",
          path: ["params", ...issue.path, key],
          message: "is not a known field",
        });
      }
      continue;
    }
    ctx.addIssue({ code: "custom", path: ["params", ...issue.path], message: issue.message });
  }
});

/** JSON with every object's keys sorted: parameters given in another order are the same call. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What tells a matrix's workloads apart: the scenario and its parsed parameters, in any key order. */
export const workloadKeyOf = (id: string, params: unknown) => `${id}\u0000${canonicalJson(params)}`;

/** The catalog as the matrix checks it; a server without `protocols` answers both (DEFAULT_PROTOCOLS). */
export type CatalogView = {
  servers: { name: string; tools: string[]; protocols?: readonly ServerProtocol[] | undefined }[];
};

/**
 * The spec schema used by the form, the API and the worker. It knows the server catalog so an
 * unknown server, scenario or tool is rejected with the path of the offending field.
 */
export function createMatrixSpecSchema(catalog: CatalogView) {
  const servers = new Map(catalog.servers.map((s) => [s.name, s]));
  return ZMatrixSpecInput.extend({
    scenarios: z.array(ZCheckedScenario).min(1, "choose at least one scenario"),
  })
    .superRefine((spec, ctx) => {
      checkAdaptive(spec, ctx);
      const cells = spec.servers.length * spec.scenarios.length * spec.loadLevels.length * mostRounds(spec);
      if (cells > MAX_MATRIX_CELLS) {
        ctx.addIssue({
          code: "custom",
          path: ["loadLevels"],
          message: `the matrix has ${cells} cells (servers × scenarios × load levels × ${spec.adaptive ? "most rounds" : "rounds"}); at most ${MAX_MATRIX_CELLS}`,
        });
      }
      const hours = (cells * (spec.durationSec + spec.warmupSec + spec.cooldownSec)) / 3600;
      if (cells <= MAX_MATRIX_CELLS && hours > MAX_MATRIX_HOURS) {
        ctx.addIssue({
          code: "custom",
          path: ["durationSec"],
          message: `the matrix would run for ${Math.round(hours)} hours; at most ${MAX_MATRIX_HOURS} (7 days) per run`,
        });
      }
      spec.servers.forEach((name, i) => {
        if (!servers.has(name))
          ctx.addIssue({ code: "custom", path: ["servers", i], message: `unknown server "${name}"` });
      });
      if (new Set(spec.servers).size !== spec.servers.length) {
        ctx.addIssue({ code: "custom", path: ["servers"], message: "servers must not repeat" });
      }
      const levels = new Set<string>();
      spec.loadLevels.forEach((level, i) => {
        // A level with errors of its own (neither vus nor rate) is named there, not as a repeat.
        const raw = level as Partial<{ vus: unknown; rate: unknown }>;
        if (typeof raw.vus !== "number" && typeof raw.rate !== "number") return;
        const key = loadLevelKey(level);
        if (levels.has(key))
          ctx.addIssue({ code: "custom", path: ["loadLevels", i], message: "is listed twice" });
        levels.add(key);
      });
      const workloads = new Map<string, number>();
      spec.scenarios.forEach((scenario, i) => {
        // The scenario itself and its parameters were checked element by element (see ZCheckedScenario).
        if (!(scenarioIds as string[]).includes(scenario.id)) return;
        const params = scenarioCatalog[scenario.id as keyof typeof scenarioCatalog].params.safeParse(
          scenario.params,
        );
        // Sessions held and think time shape a closed loop of VUs; an open-model level starts calls by
        // the clock, from a pool of VUs that a pause would only exhaust. Said even while another
        // parameter is wrong, from the values as given (1 session and 0 ms meaning none).
        const holds = (params.success ? params.data : (scenario.params ?? {})) as Record<string, unknown>;
        const none = { sessionsPerVu: 1, thinkMs: 0 } as const;
        if (spec.loadLevels.some((level) => typeof (level as { rate?: unknown }).rate === "number")) {
          for (const key of ["sessionsPerVu", "thinkMs"] as const) {
            if (holds[key] === undefined || holds[key] === none[key]) continue;
            ctx.addIssue({
              code: "custom",
              path: ["scenarios", i, "params", key],
              message:
                "needs closed-model levels (VUs): an open-model level (rate) starts calls by the clock",
            });
          }
        }
        if (!params.success) return;
        const durationIssues = spec.loadLevels.map((level) =>
          scenarioModule(scenario.id)?.durationIssue?.(params.data, {
            durationSec: spec.durationSec,
            rate: (level as { rate?: number }).rate,
          }),
        );
        for (const message of new Set(durationIssues.filter((m): m is string => !!m)))
          ctx.addIssue({ code: "custom", path: ["durationSec"], message: `${message} (scenarios.${i})` });
        // The same workload twice (as the comparison keys cells: scenario and stored parameters, the
        // defaults filled in) would run its cells twice and split its rounds in two; rounds repeat it.
        const key = workloadKeyOf(scenario.id, params.data);
        const first = workloads.get(key);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["scenarios", i],
            message: `is the same workload as scenarios.${first}; to measure it more often, raise rounds`,
          });
        } else workloads.set(key, i);
        const protocol = scenarioCatalog[scenario.id as keyof typeof scenarioCatalog].protocol;
        for (const name of spec.servers) {
          const protocols = servers.get(name)?.protocols ?? DEFAULT_PROTOCOLS;
          if (servers.has(name) && !protocols.includes(protocol)) {
            ctx.addIssue({
              code: "custom",
              path: ["scenarios", i, "id"],
              message: `server "${name}" does not serve ${protocol === "mcp" ? "MCP" : "the plain HTTP routes"} (its manifest's protocols: ${protocols.join(", ")})`,
            });
          }
        }
        // Only a scenario that calls tools needs them on every server: its `tool`, or those it names.
        const called =
          scenarioModule(scenario.id)?.calledTools?.(params.data) ??
          ("tool" in params.data ? [{ tool: params.data.tool, path: ["tool"] }] : []);
        for (const { tool, path } of called) {
          for (const name of spec.servers) {
            const server = servers.get(name);
            if (server && server.tools.length > 0 && !server.tools.includes(tool)) {
              ctx.addIssue({
                code: "custom",
                path: ["scenarios", i, "params", ...path],
                message: `server "${name}" has no tool "${tool}"`,
              });
            }
          }
        }
      });
    })
    .transform((spec) => ({
      ...spec,
      scenarios: spec.scenarios.map((s) => ({
        id: s.id,
        params: scenarioCatalog[s.id as keyof typeof scenarioCatalog].params.parse(s.params),
      })),
    }));
}

export type TMatrixSpec = z.output<ReturnType<typeof createMatrixSpecSchema>>;

/** Seconds a cell costs beyond its load: starting the server, health checks, stopping it. */
export const CELL_START_STOP_SEC = 3;

/**
 * A matrix's cells (servers × scenarios × load levels × rounds, run one after another) and about
 * how long a worker takes over them: each cell's warm-up, measured seconds, cool-down and
 * CELL_START_STOP_SEC. An adaptive matrix is estimated at its most rounds (`rounds` says the span).
 * The schema's defaults fill what the spec leaves out.
 */
export function matrixEstimate(spec: TMatrixSpecInput): {
  cells: number;
  cellSec: number;
  totalSec: number;
  rounds: { min: number; max: number };
} {
  const n = (value: unknown, fallback: number) => (value === undefined ? fallback : Number(value));
  const min = n(spec.rounds, 1);
  const max = spec.adaptive ? Math.max(min, n(spec.adaptive.maxRounds, min)) : min;
  const cells = spec.servers.length * spec.scenarios.length * spec.loadLevels.length * max;
  const cellSec =
    n(spec.warmupSec, 0) + n(spec.durationSec, 0) + n(spec.cooldownSec, 2) + CELL_START_STOP_SEC;
  return { cells, cellSec, totalSec: cells * cellSec, rounds: { min, max } };
}

/** One cell of the matrix: what a worker runs. Rounds are interleaved so noise spreads across servers. */
export type CellPlan = {
  index: number;
  serverName: string;
  scenario: string;
  params: Record<string, unknown>;
  loadLevel: TLoadLevel;
  round: number;
};

/** The cells of rounds 1..`rounds` (an adaptive matrix's minimum); the worker adds any later round. */
export function expandMatrix(spec: TMatrixSpec): CellPlan[] {
  const cells: CellPlan[] = [];
  for (let round = 1; round <= spec.rounds; round++) cells.push(...expandRound(spec, round, cells.length));
  return cells;
}

/** One round's cells, indexed on from `firstIndex`: every workload × level × server, in that order. */
export function expandRound(
  spec: Pick<TMatrixSpec, "scenarios" | "loadLevels" | "servers">,
  round: number,
  firstIndex: number,
): CellPlan[] {
  const cells: CellPlan[] = [];
  for (const scenario of spec.scenarios) {
    for (const level of spec.loadLevels) {
      for (const serverName of spec.servers) {
        cells.push({
          index: firstIndex + cells.length,
          serverName,
          scenario: scenario.id,
          params: scenario.params,
          loadLevel: level,
          round,
        });
      }
    }
  }
  return cells;
}
