import type { TRoundsDecision, TRoundsPair } from "@perflab/contracts";
import type { RunDto } from "@/lib/dto";
import { levelLabel } from "@/lib/labels";

const pct = (value: number) =>
  `${value < 0 ? "−" : ""}${Math.abs(value).toFixed(Math.abs(value) < 10 ? 1 : 0)} %`;

/** "go and node (echo · 50 VUs)". */
const pairName = (p: TRoundsPair) =>
  `${p.faster} and ${p.slower} (${p.workload} · ${levelLabel({ vus: null, ...p.level }) ?? ""})`;

const gapText = (p: TRoundsPair) =>
  p.gapPct ? `gap ${pct(p.gapPct[0])} to ${pct(p.gapPct[1])}` : "too few rounds for a gap";

const verdictText: Record<TRoundsPair["verdict"], string> = {
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

/** The adaptive-rounds rule's last look at a run, with each neighbouring pair; nothing for fixed rounds. */
export function AdaptiveRounds({ run }: { run: Pick<RunDto, "status" | "spec" | "rounds"> }) {
  if (!run.spec.adaptive) return null;
  const decision = run.rounds ?? null;
  return (
    <section aria-label="Adaptive rounds" className="text-sm" data-testid="adaptive-rounds">
      <p>
        <span className="font-medium">Adaptive rounds:</span> {roundsSummary(decision, run)}
      </p>
      {decision && decision.pairs.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
          {decision.pairs.map((p) => (
            <li key={`${pairName(p)}`}>
              {pairName(p)}: {verdictText[p.verdict]}
              {p.gapPct && `; ${p.slower} does ${pct(p.gapPct[0])} to ${pct(p.gapPct[1])} fewer ops/s`}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
