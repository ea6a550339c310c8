import { z } from "zod";
import { comparisonBody, comparisonLevel, ZRoundStats } from "./comparison.ts";

/** Query of GET /api/v1/runs/{id}/verdict. */
export const ZVerdictQuery = z.object({
  baseline: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .optional()
    .describe("The run to judge against; defaults to the run's own baselineRunId."),
  // An empty `tolerance=` is an error, not 0 (which z.coerce would make of it: no tolerance at all).
  tolerance: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
      z.number({ error: "must be a number" }).min(0, "must not be negative").max(100, "must be at most 100"),
    )
    .default(10)
    .describe("Percent of change on a metric that is not called a regression (default 10)."),
});

/** Which server, workload (scenario and parameters) and load level a verdict's entry is about. */
const verdictWhere = {
  scenario: z.string(),
  params: z.record(z.string(), z.unknown()),
  server: z.string(),
  ...comparisonLevel,
};

const ZVerdictMetric = z.enum(["opsRps", "p99Ms", "rssPeakBytes", "errorPct"]);

/** GET /api/v1/runs/{id}/verdict: a run judged against a baseline run, for CI. */
export const ZVerdict = z.object({
  runId: z.string(),
  baselineRunId: z.string(),
  outcome: z
    .enum(["pass", "fail", "inconclusive"])
    .describe(
      "fail: some check regressed, or cells with a result in the baseline failed; pass: neither; inconclusive: no server, workload and level matched.",
    ),
  tolerancePct: z.number(),
  checks: z.array(
    z.object({
      ...verdictWhere,
      metric: ZVerdictMetric.describe(
        "Tool calls per second (higher is better); p99 ms, peak RSS bytes and failed requests per 100 (lower is better).",
      ),
      baseline: ZRoundStats,
      candidate: ZRoundStats,
      changePct: z
        .number()
        .describe(
          "(candidate − baseline) ÷ baseline of the rounds' means, in percent; for errorPct the difference in percentage points (1 point is within tolerance).",
        ),
      separation: z
        .enum(["apart", "overlap"])
        .nullable()
        .describe(
          "Whether the two 95 % intervals of the mean are apart; null with a single round on a side.",
        ),
      outcome: z
        .enum(["regressed", "improved", "unchanged", "unclear"])
        .describe(
          "regressed/improved: beyond the tolerance and not overlapping; unchanged: within the tolerance; unclear: " +
            "beyond it but the intervals overlap, or k6 was saturated (throughput only).",
        ),
      note: z.string().nullable(),
    }),
  ),
  failed: z
    .array(
      z.object({
        ...verdictWhere,
        cells: z.number().int(),
        error: z.string().nullable().describe("The first failed cell's reason."),
      }),
    )
    .describe(
      "Server, workload and level with a result in the baseline whose cells failed in this run: a fail.",
    ),
  unmatched: z
    .array(
      z.object({
        ...verdictWhere,
        in: z.enum(["baseline", "candidate"]),
      }),
    )
    .describe("Server, workload and level measured with a result in only one of the runs."),
  notMeasured: z
    .array(z.object({ ...verdictWhere, metric: ZVerdictMetric }))
    .optional()
    .describe(
      "Checks not made because a side could not measure the metric: a registered endpoint has no RSS, so its memory is not judged.",
    ),
  environment: comparisonBody.environment.describe(
    "Aspects (machine, k6 build, limits) the two runs' cells did not share: a verdict across machines is weak.",
  ),
});
