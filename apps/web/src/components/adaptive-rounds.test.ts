import type { TRoundsDecision } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import type { RunDto } from "@/lib/dto";
import { pct, roundsSummary } from "./adaptive-rounds-summary";

const run = {
  status: "running",
  spec: { rounds: 3, adaptive: { maxRounds: 10, maxMinutes: 45 } },
} as unknown as Pick<RunDto, "status" | "spec">;
const decision = (
  reason: TRoundsDecision["reason"],
  verdict: "separated" | "undecided",
): TRoundsDecision => ({
  roundsDone: reason === "separated" ? 5 : 10,
  reason,
  pairs: [
    {
      workload: "echo",
      level: { vus: 50 },
      faster: "go",
      slower: "node",
      gapPct: verdict === "separated" ? [12, 30] : [-2, 9],
      verdict,
    },
  ],
  decidedAt: "2026-01-01T00:00:00.000Z",
});

describe("the adaptive rounds line", () => {
  it("says why the rounds stopped, naming an undecided pair with its gap", () => {
    expect(roundsSummary(decision("separated", "separated"), run)).toBe(
      "stopped after 5 rounds: every neighbouring pair separated",
    );
    expect(roundsSummary(decision("max-rounds", "undecided"), run)).toBe(
      "budget reached: 10 rounds; go and node (echo · 50 VUs) still undecided (gap −2.0 % to 9.0 %)",
    );
    expect(roundsSummary(decision("max-time", "undecided"), run)).toMatch(/^time budget reached \(45 min\)/);
  });

  it("says it is deciding while rounds are added", () => {
    expect(roundsSummary(null, run)).toBe("deciding after each round (at most 10)");
    expect(roundsSummary(decision(null, "undecided"), run)).toBe(
      "undecided after 10 rounds: another round is queued",
    );
  });

  it("says a gap bound past −999 % as such, not as a 45-digit number", () => {
    expect(pct(-1.3545493826792992e44)).toBe("under −999 %");
    expect(pct(-999)).toBe("−999 %");
    expect(pct(100)).toBe("100 %");
  });
});
