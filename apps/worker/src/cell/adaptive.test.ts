import type { TLoadLevel, TMatrixSpec } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import {
  decideNextRound,
  lastRoundMinutes,
  planNextRound,
  type RoundCell,
  roundsGroups,
} from "./adaptive.ts";

const echo = { tool: "echo", arguments: { message: "hi" } };
const t0 = new Date("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

/** Round r of `servers` at one level, each cell a minute long, one after another. */
function round(r: number, opsRps: Record<string, number | null>, level: TLoadLevel = { vus: 10 }) {
  return Object.entries(opsRps).map(
    ([serverName, ops], i): RoundCell => ({
      serverName,
      scenario: "mcp-tool-call",
      params: echo,
      loadLevel: level,
      round: r,
      opsRps: ops,
      startedAt: at((r - 1) * 2 + i),
      finishedAt: at((r - 1) * 2 + i + 1),
    }),
  );
}

const spec = {
  servers: ["go", "python"],
  scenarios: [{ id: "mcp-tool-call", params: echo }],
  loadLevels: [{ vus: 10 }],
  rounds: 2,
  adaptive: { maxRounds: 4 },
  durationSec: 3,
  warmupSec: 1,
  cooldownSec: 0,
  driver: "local",
} as unknown as TMatrixSpec;

describe("adaptive rounds in the worker", () => {
  it("groups cells per workload and level, each server's ops/s at its round's index", () => {
    const cells = [
      ...round(1, { go: 9000, python: 1500 }),
      ...round(2, { go: 9100, python: null }),
      ...round(1, { go: 7000, python: 1400 }, { rate: 500, maxVus: 100 }),
    ];
    const { groups, roundsDone } = roundsGroups(cells);
    expect(roundsDone).toBe(2);
    expect(groups.map((g) => [g.workload, g.level])).toEqual([
      ["echo", { vus: 10 }],
      ["echo", { rate: 500, maxVus: 100 }],
    ]);
    // A failed cell, or a round a level has not run yet, is a gap the rule skips when pairing.
    expect(groups[0]!.servers).toEqual([
      { server: "go", rounds: [9000, 9100] },
      { server: "python", rounds: [1500, null] },
    ]);
    expect(groups[1]!.servers[0]!.rounds).toEqual([7000, null]);
  });

  it("estimates a round from the last round's first start to its last end", () => {
    const cells = [...round(1, { go: 1, python: 1 }), ...round(2, { go: 1, python: 1 })];
    expect(lastRoundMinutes(cells, 2)).toBe(2);
    expect(lastRoundMinutes([], 0)).toBe(0);
  });

  it("plans the next round's cells with indexes after the run's last", () => {
    const plans = planNextRound(spec, 2, 4);
    expect(plans.map((p) => [p.index, p.round, p.serverName])).toEqual([
      [4, 3, "go"],
      [5, 3, "python"],
    ]);
  });

  it("stops servers far apart as separated, naming each pair's workload and level", () => {
    const cells = [
      ...round(1, { go: 9000, python: 1500 }),
      ...round(2, { go: 9300, python: 1520 }),
      ...round(3, { go: 9100, python: 1490 }),
    ];
    const decision = decideNextRound({ spec: { ...spec, rounds: 3 }, cells, startedAt: t0, now: at(6) });
    expect(decision).toMatchObject({ roundsDone: 3, reason: "separated", decidedAt: at(6).toISOString() });
    expect(decision!.pairs).toMatchObject([
      { workload: "echo", level: { vus: 10 }, faster: "go", slower: "python", verdict: "separated" },
    ]);
  });

  it("asks for another round while undecided, and stops at the time budget", () => {
    const cells = [...round(1, { go: 1000, python: 990 }), ...round(2, { go: 950, python: 1010 })];
    const going = decideNextRound({ spec, cells, startedAt: t0, now: at(4) });
    expect(going).toMatchObject({ roundsDone: 2, reason: null });
    expect(going!.pairs[0]!.verdict).toBe("undecided");
    // Four minutes in, a round takes two: a five-minute budget has no room for it.
    const tight = { ...spec, adaptive: { maxRounds: 4, maxMinutes: 5 } };
    expect(decideNextRound({ spec: tight, cells, startedAt: t0, now: at(4) })?.reason).toBe("max-time");
  });

  it("leaves a fixed number of rounds alone", () => {
    const { adaptive: _, ...fixed } = spec;
    expect(
      decideNextRound({ spec: fixed, cells: round(1, { go: 1, python: 1 }), startedAt: t0, now: t0 }),
    ).toBe(null);
  });
});
