import type { TRoundsDecision, TRoundsPair } from "@perflab/contracts";
import type { RunDto } from "@/lib/dto";
import { levelLabel } from "@/lib/labels";

/**
 * A gap bound: "−4.2 %", "35 %". After few rounds among many pairs a lower bound can be −10⁴⁴ %
 * (the interval of a log ratio, exponentiated): anything under −999 % is said as such.
 */
export const pct = (value: number) => {
  if (value < -999) return "under −999 %";
  return `${value < 0 ? "−" : ""}${Math.abs(value).toFixed(Math.abs(value) < 10 ? 1 : 0)} %`;
};

/** "go and node (echo · 50 VUs)". */
export const pairName = (p: TRoundsPair) =>
  `${p.faster} and ${p.slower} (${p.workload} · ${levelLabel({ vus: null, ...p.level }) ?? ""})`;

export const gapText = (p: TRoundsPair) =>
  p.gapPct ? `gap ${pct(p.gapPct[0])} to ${pct(p.gapPct[1])}` : "too few rounds for a gap";

export const verdictText: Record<TRoundsPair["verdict"], string> = {
  separated: "apart",
  equivalent: "alike",
  undecided: "still undecided",
};

const plural = (n: number) => `${n} round${n === 1 ? "" : "s"}`;

/** Why an adaptive run stopped, or that it is still adding rounds, in a few words. */
export function roundsSummary(
  decision: TRoundsDecision | null,
  run: Pick<RunDto, "status" | "spec">,
): string {
  const adaptive = run.spec.adaptive;
  if (!decision) return `deciding after each round (at most ${adaptive?.maxRounds ?? "?"})`;
  const { roundsDone, pairs } = decision;
  const undecided = pairs.filter((p) => p.verdict === "undecided");
  const open =
    undecided.length > 0
      ? `; ${undecided.map((p) => `${pairName(p)} still undecided (${gapText(p)})`).join(", ")}`
      : "";
  switch (decision.reason) {
    case "separated":
      return `stopped after ${plural(roundsDone)}: every neighbouring pair separated`;
    case "no-difference":
      return `stopped after ${plural(roundsDone)}: no difference found`;
    case "decided":
      return `stopped after ${plural(roundsDone)}: every neighbouring pair separated or alike`;
    case "max-rounds":
      return `budget reached: ${plural(roundsDone)}${open}`;
    case "max-time":
      return `time budget reached (${adaptive?.maxMinutes ?? "?"} min) after ${plural(roundsDone)}${open}`;
    default:
      return run.status === "cancelled"
        ? `cancelled after ${plural(roundsDone)}${open}`
        : `undecided after ${plural(roundsDone)}: another round is queued`;
  }
}
