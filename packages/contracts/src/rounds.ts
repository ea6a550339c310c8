import { z } from "zod";
import { numeric } from "./fields.ts";

const number = () => z.number({ error: "must be a number" });

/** Most rounds a matrix may run, fixed or adaptive. */
export const MAX_ROUNDS = 20;

/**
 * Adaptive rounds: after the spec's `rounds` (the minimum before the first look), the worker adds a
 * round at a time until every neighbouring pair of servers is settled or a budget is reached. The
 * rule itself (and the equivalence margin's default) is @perflab/metrics' sequential.ts.
 */
export const ZAdaptiveRounds = z.strictObject({
  maxRounds: numeric(
    number()
      .int("must be a whole number")
      .min(2, "must be at least 2")
      .max(MAX_ROUNDS, `must be at most ${MAX_ROUNDS}`),
  ).describe("The most rounds the run may take, at least `rounds`."),
  maxMinutes: numeric(
    number()
      .min(1, "must be at least 1 minute")
      .max(7 * 24 * 60, "must be at most 7 days"),
  )
    .optional()
    .describe("The run's whole wall-clock budget: a round that would end past it is not begun."),
  equivalencePct: numeric(number().min(0.5, "must be at least 0.5").max(20, "must be at most 20"))
    .optional()
    .describe("Servers surely within this many percent of each other are called equivalent (default 3)."),
});

export type TAdaptiveRounds = z.output<typeof ZAdaptiveRounds>;

/** The rounds a matrix may run: its adaptive most, or its fixed count. */
export const mostRounds = (spec: { rounds: number; adaptive?: { maxRounds: number } | undefined }) =>
  spec.adaptive ? Math.max(spec.rounds, spec.adaptive.maxRounds) : spec.rounds;

export function checkAdaptive(
  spec: { rounds: number; adaptive?: { maxRounds: number } | undefined },
  ctx: z.RefinementCtx,
) {
  if (!spec.adaptive) return;
  // One round has no spread: the rule's first look needs two of every server.
  if (spec.rounds < 2) {
    ctx.addIssue({
      code: "custom",
      path: ["rounds"],
      message: "must be at least 2 with adaptive rounds (the minimum before the first look)",
    });
  }
  if (spec.adaptive.maxRounds < spec.rounds) {
    ctx.addIssue({
      code: "custom",
      path: ["adaptive", "maxRounds"],
      message: `must be at least rounds (${spec.rounds})`,
    });
  }
}

/** "3 rounds", or "3 to 10 rounds" for an adaptive matrix. */
export function roundsLabel({ min, max }: { min: number; max: number }): string {
  return min === max ? `${min} round${min === 1 ? "" : "s"}` : `${min} to ${max} rounds`;
}

export const stopReasons = ["separated", "no-difference", "decided", "max-rounds", "max-time"] as const;

/** One neighbouring pair of servers (faster by mean first) at one workload and load level. */
export const ZRoundsPair = z.object({
  workload: z.string().describe('The workload as the dashboard names it, e.g. "echo".'),
  level: z
    .union([
      z.object({ vus: z.number().int() }),
      z.object({ rate: z.number().int(), maxVus: z.number().int() }),
    ])
    .describe("The load level: closed model { vus } or open model { rate, maxVus }."),
  faster: z.string(),
  slower: z.string(),
  gapPct: z
    .tuple([z.number(), z.number()])
    .nullable()
    .describe("The interval of how many percent fewer ops/s the slower does; null before two rounds."),
  verdict: z.enum(["separated", "equivalent", "undecided"]),
});

/** The last look of an adaptive run's rule, stored on the run (`rounds` of a run). */
export const ZRoundsDecision = z
  .object({
    roundsDone: z.number().int().describe("Rounds finished when the rule looked."),
    reason: z
      .enum(stopReasons)
      .nullable()
      .describe(
        "Why the run stopped: separated (every pair apart), no-difference (every pair within the margin), decided (each one or the other), max-rounds or max-time (a budget reached); null while it adds rounds.",
      ),
    pairs: z.array(ZRoundsPair),
    decidedAt: z.iso.datetime({ offset: true }),
  })
  .describe("The adaptive-rounds rule's last decision; null for a run with a fixed number of rounds.");

export type TRoundsDecision = z.infer<typeof ZRoundsDecision>;
export type TRoundsPair = z.infer<typeof ZRoundsPair>;
