import { z } from "zod";
import { ZCellStatus, ZRunStatus } from "../statuses.ts";

/** One measure over the rounds of a server × load level. */
export const ZRoundStats = z.object({
  n: z.number().int().describe("Rounds with a value."),
  mean: z.number(),
  sd: z.number().describe("Sample standard deviation (n − 1); 0 for one round."),
  cv: z.number().nullable().describe("Coefficient of variation, sd ÷ |mean|; null for one round."),
  ci95: z
    .tuple([z.number(), z.number()])
    .nullable()
    .describe("95 % confidence interval of the mean (Student's t); null for one round."),
  min: z.number(),
  max: z.number(),
});

/** A load level in a comparison: exactly one of vus and rate is set (neither for a cell without one). */
export const comparisonLevel = {
  vus: z
    .number()
    .int()
    .nullable()
    .describe("Closed model: VUs calling back to back; null for an open-model level."),
  rate: z
    .number()
    .int()
    .nullable()
    .describe(
      "Open model: tool calls started per second (k6's constant-arrival-rate); null for a closed-model level.",
    ),
};

/** What the single-run and the cross-run comparison share. */
export const comparisonBody = {
  /** The servers in the run's spec order (across runs, "server · tag", run after run). */
  servers: z.array(z.string()),
  workloads: z.array(
    z.object({
      scenario: z.string(),
      tool: z.string().nullable(),
      params: z.record(z.string(), z.unknown()),
      levels: z
        .array(z.object(comparisonLevel))
        .describe(
          "The workload's load levels: closed-model levels by VUs, then open-model levels by rate. 50 VUs " +
            "and 50 calls/s are two levels.",
        ),
      groups: z.array(
        z.object({
          server: z.string(),
          ...comparisonLevel,
          rounds: z.number().int().describe("Succeeded rounds with a summary."),
          k6SaturatedRounds: z.number().int(),
          machineBusyRounds: z
            .number()
            .int()
            .describe(
              "Rounds measured while other work took a quarter of the machine or more (a cell's machineBusy).",
            ),
          warmingUpRounds: z
            .number()
            .int()
            .describe(
              "Rounds whose server was still getting faster while they measured (a cell's warmingUp).",
            ),
          unmeasured: z
            .array(z.enum(["cpu", "rss"]))
            .optional()
            .describe(
              "What its cells could not measure: a registered endpoint has no CPU or RSS (rssPeakBytes and opsPerCpuSecond are null, not 0).",
            ),
          opsRps: ZRoundStats.describe(
            "MCP tool calls per second. At an open-model level k6 offers the rate: this shows whether the " +
              "server kept up, not how fast it could go.",
          ),
          p99Ms: ZRoundStats.nullable(),
          rssPeakBytes: ZRoundStats.nullable(),
          opsPerCpuSecond: ZRoundStats.nullable().describe("Tool calls per second per core of server CPU."),
          failedCallsPct: ZRoundStats.nullable().describe(
            "The share of calls that failed, in percent (errors per tool call; a failed session setup counts " +
              "as a failed call). opsRps counts failed calls too: a server answering fast with errors is not fast.",
          ),
          rpsPerMb: ZRoundStats.nullable().describe(
            "HTTP requests per second per MB of the server's mean RSS.",
          ),
          latencyStddevMs: ZRoundStats.nullable().describe(
            "Standard deviation of the measured window's latency, ms (from the merged histogram).",
          ),
          gcPauseMaxMs: ZRoundStats.nullable().describe(
            "The server runtime's longest single GC pause in the measured window, ms; null where the runtime reports none.",
          ),
          timeoutsPct: ZRoundStats.nullable().describe(
            "Requests that hit the client's timeout (the matrix's timeoutMs), in % of the operations, apart from failedCallsPct.",
          ),
          versusFastest: z.object({
            ratio: z.number().describe("Mean ops/s ÷ the fastest server's at this level."),
            fastest: z.boolean(),
            separation: z
              .enum(["apart", "overlap"])
              .nullable()
              .describe(
                "apart: the 95 % intervals of the two means do not overlap (a conservative test: the difference " +
                  "is clear); overlap: they do (these rounds show no clear difference; more rounds may); null for " +
                  "the fastest itself or a single round on either side.",
              ),
          }),
        }),
      ),
    }),
  ),
  /** Aspects of where and how the compared cells ran that are not the same for all of them. */
  environment: z.array(
    z.object({
      aspect: z.enum(["machine", "k6", "limits", "window", "runtime"]),
      variants: z.array(
        z.object({ label: z.string(), cells: z.number().int(), servers: z.array(z.string()) }),
      ),
    }),
  ),
  /** Failed or cancelled cells: no result to compare. */
  missing: z.array(
    z.object({
      index: z.number().int(),
      serverName: z.string(),
      ...comparisonLevel,
      round: z.number().int(),
      status: ZCellStatus,
      error: z.string().nullable(),
    }),
  ),
  /** Cells not finished yet. */
  pending: z.number().int(),
};

/** GET /api/v1/runs/{id}/comparison: the run's comparison, as the run page draws it. */
export const ZRunComparison = z.object({ runId: z.string(), ...comparisonBody });

/** Most runs one cross-run comparison takes. */
export const MAX_RUNS_TO_COMPARE = 8;

/** Run ids from a `runs` parameter (comma-separated, or repeated): trimmed, distinct, in order. */
export function splitRunIds(value: string | readonly string[] | null | undefined): string[] {
  const parts = (typeof value === "string" ? [value] : (value ?? [])).flatMap((v) => v.split(","));
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
}

/** The query of GET /api/v1/comparison. */
export const ZRunsComparisonQuery = z.object({
  runs: z
    .string()
    .transform((value) => splitRunIds(value))
    .pipe(
      z
        .array(z.string())
        .min(2, "name at least two runs")
        .max(MAX_RUNS_TO_COMPARE, `name at most ${MAX_RUNS_TO_COMPARE} runs`),
    )
    .describe(`Comma-separated run ids, 2 to ${MAX_RUNS_TO_COMPARE}, oldest first as the bars should read.`),
});

/**
 * GET /api/v1/comparison: several runs compared as one, each server labelled "server · tag" per run
 * (tag: the run's short commit, else what its name says beyond its servers and scenarios; runs that
 * would share a tag get their driver, load levels, date or time of creation, else the end of their id).
 */
export const ZRunsComparison = z.object({
  runs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      tag: z.string(),
      commit: z.string().nullable(),
      status: ZRunStatus,
      unusable: z
        .string()
        .nullable()
        .optional()
        .describe(
          "Why this run's latency cannot be compared (a run uploaded as a k6 summary holds k6's own percentiles, not a histogram to merge); null when it can.",
        ),
    }),
  ),
  ...comparisonBody,
});
