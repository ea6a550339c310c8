import { describe, expect, it } from "vitest";
import { decideRounds, type RoundsGroup, type RoundsRule } from "./sequential.ts";
import { t95 } from "./stats.ts";

const rule: RoundsRule = { minRounds: 3, maxRounds: 10, confidence: 0.95, equivalencePct: 3 };

/** A seeded normal generator (mulberry32 + Box–Muller), so the simulations are the same every run. */
function normal(seed: number) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Rounds of servers whose true ops/s are `means`, each round also moved by a drift all servers share. */
function rounds(
  means: Record<string, number>,
  n: number,
  noise: number,
  drift: number,
  seed: number,
): RoundsGroup {
  const z = normal(seed);
  const shared = Array.from({ length: n }, () => 1 + drift * z());
  return {
    key: "echo@50",
    servers: Object.entries(means).map(([server, mean]) => ({
      server,
      rounds: shared.map((d) => mean * d * (1 + noise * z())),
    })),
  };
}

const decide = (group: RoundsGroup, roundsDone = group.servers[0]!.rounds.length) =>
  decideRounds({ groups: [group], rule, roundsDone, elapsedMinutes: 0, roundMinutes: 1 });

describe("adaptive rounds", () => {
  it("stops as soon as servers far apart are separated, naming the pair", () => {
    const decision = decide(rounds({ rust: 10_000, go: 7000, python: 1500 }, 3, 0.02, 0.1, 1));
    expect(decision).toMatchObject({ stop: true, reason: "separated" });
    expect(decision.pairs.map((p) => [p.faster, p.slower, p.verdict])).toEqual([
      ["rust", "go", "separated"],
      ["go", "python", "separated"],
    ]);
    // go does 30 % fewer ops/s than rust: the interval holds it, and is wide after only three rounds.
    const [lo, hi] = decision.pairs[0]!.gapPct!;
    expect(lo).toBeGreaterThan(0);
    expect(lo).toBeLessThan(30);
    expect(hi).toBeGreaterThan(30);
  });

  it("does not look before the minimum rounds, and stops at the most", () => {
    expect(decide(rounds({ a: 10_000, b: 5000 }, 2, 0.01, 0, 2))).toEqual({
      stop: false,
      reason: null,
      pairs: [],
    });
    const close = rounds({ a: 1000, b: 960 }, 10, 0.08, 0, 3);
    expect(decide(close)).toMatchObject({ stop: true, reason: "max-rounds" });
    expect(decide(close).pairs[0]!.verdict).toBe("undecided");
  });

  it("calls servers equivalent only when their gap is surely inside the margin", () => {
    const twins = rounds({ a: 1000, b: 1000 }, 10, 0.004, 0.2, 4);
    expect(decide(twins)).toMatchObject({ stop: true, reason: "no-difference" });
    // The same twins with 5 % noise cannot be told apart from a 3 % gap in ten rounds.
    expect(decide(rounds({ a: 1000, b: 1000 }, 10, 0.05, 0, 5)).reason).toBe("max-rounds");
  });

  it("does not begin a round that would end past the time budget", () => {
    const group = rounds({ a: 1000, b: 970 }, 4, 0.08, 0, 6);
    const input = { groups: [group], rule: { ...rule, maxMinutes: 30 }, roundsDone: 4, roundMinutes: 8 };
    expect(decideRounds({ ...input, elapsedMinutes: 21 })).toMatchObject({ stop: false });
    expect(decideRounds({ ...input, elapsedMinutes: 23 })).toMatchObject({ stop: true, reason: "max-time" });
  });

  it("stays under 5 % false separations however often it looks, where re-checking a 95 % interval does not", () => {
    let ruled = 0;
    let naive = 0;
    const trials = 2000;
    for (let trial = 0; trial < trials; trial++) {
      const group = rounds({ a: 1000, b: 1000 }, rule.maxRounds, 0.1, 0.1, 1000 + trial);
      for (let n = rule.minRounds; n <= rule.maxRounds; n++) {
        const seen = {
          ...group,
          servers: group.servers.map((s) => ({ ...s, rounds: s.rounds.slice(0, n) })),
        };
        const decision = decide(seen, n);
        if (decision.stop) {
          if (decision.reason === "separated") ruled++;
          break;
        }
      }
      // The naive rule: a paired 95 % t-interval after every round, stopping at the first that excludes 0.
      for (let n = rule.minRounds; n <= rule.maxRounds; n++) {
        const d = group.servers[0]!.rounds.slice(0, n).map((a, r) =>
          Math.log(group.servers[1]!.rounds[r]! / a!),
        );
        const mean = d.reduce((x, y) => x + y, 0) / n;
        const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1));
        if (Math.abs(mean) > t95(n - 1) * (sd / Math.sqrt(n))) {
          naive++;
          break;
        }
      }
    }
    expect(ruled / trials).toBeLessThan(0.05);
    expect(naive / trials).toBeGreaterThan(0.1);
  });
});
