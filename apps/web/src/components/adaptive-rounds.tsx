import type { RunDto } from "@/lib/dto";
import { pairName, pct, roundsSummary, verdictText } from "./adaptive-rounds-summary";

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
