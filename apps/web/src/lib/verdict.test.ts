import { describe, expect, it } from "vitest";
import { cell, openCell, resetCells, summary } from "./cell-fixtures";
import { judgeRuns } from "./verdict";

/** Rounds of one server at one level: ops/s per round, with a p99 and peak RSS per round. */
const rounds = (server: string, vus: number, ops: number[], p99 = 10, rss = 50e6) =>
  ops.map((o, i) => cell(server, vus, i + 1, summary(o, p99, rss)));

describe("judgeRuns", () => {
  it("fails a clear throughput drop beyond the tolerance, and passes the metrics that held", () => {
    resetCells();
    const baseline = rounds("go", 10, [1000, 1010, 990]);
    const candidate = rounds("go", 10, [800, 805, 795]);
    const verdict = judgeRuns(baseline, candidate, 10);
    expect(verdict.outcome).toBe("fail");
    const ops = verdict.checks.find((c) => c.metric === "opsRps")!;
    expect(ops).toMatchObject({
      server: "go",
      vus: 10,
      rate: null,
      outcome: "regressed",
      separation: "apart",
    });
    expect(ops.changePct).toBeCloseTo(-20, 5);
    expect(ops.note).toBeNull();
    expect(verdict.checks.find((c) => c.metric === "p99Ms")).toMatchObject({
      outcome: "unchanged",
      changePct: 0,
    });
    expect(verdict.checks.find((c) => c.metric === "rssPeakBytes")?.outcome).toBe("unchanged");
  });

  it("does not judge a registered endpoint's memory, which nothing measured, and says so", () => {
    resetCells();
    const endpoint = (ops: number[]) =>
      rounds("mine", 10, ops).map((c) => ({
        ...c,
        summary: { ...c.summary!, rssPeakBytes: null },
        unmeasured: ["cpu" as const, "rss" as const],
      }));
    const verdict = judgeRuns(endpoint([1000, 1000]), endpoint([1000, 1000]));
    expect(verdict.checks.map((c) => c.metric).sort()).toEqual(["opsRps", "p99Ms"]);
    expect(verdict.notMeasured).toEqual([
      expect.objectContaining({ server: "mine", vus: 10, metric: "rssPeakBytes" }),
    ]);
    expect(verdict.outcome).toBe("pass");
  });

  it("calls a higher p99 and more memory regressions, a lower p99 an improvement", () => {
    resetCells();
    const baseline = [...rounds("go", 10, [1000, 1000], 10, 50e6), ...rounds("node", 10, [900, 900], 20)];
    const candidate = [...rounds("go", 10, [1000, 1000], 15, 80e6), ...rounds("node", 10, [900, 900], 12)];
    const verdict = judgeRuns(baseline, candidate);
    const of = (server: string, metric: string) =>
      verdict.checks.find((c) => c.server === server && c.metric === metric)!;
    expect(of("go", "p99Ms")).toMatchObject({ outcome: "regressed", changePct: 50 });
    expect(of("go", "rssPeakBytes")).toMatchObject({ outcome: "regressed", changePct: 60 });
    expect(of("node", "p99Ms")).toMatchObject({ outcome: "improved", changePct: -40 });
    expect(verdict.outcome).toBe("fail");
  });

  it("does not fail on noise: a drop whose rounds' intervals overlap is unclear, one within the tolerance unchanged", () => {
    resetCells();
    const noisy = judgeRuns(rounds("go", 10, [1000, 1400, 700]), rounds("go", 10, [800, 1100, 600]), 10);
    expect(noisy.checks.find((c) => c.metric === "opsRps")).toMatchObject({
      outcome: "unclear",
      separation: "overlap",
    });
    expect(noisy.outcome).toBe("pass");
    const small = judgeRuns(rounds("go", 10, [1000, 1001]), rounds("go", 10, [950, 951]), 10);
    expect(small.checks.find((c) => c.metric === "opsRps")?.outcome).toBe("unchanged");
    // A tighter tolerance turns the same 5 % into a regression: the rounds do tell them apart.
    expect(judgeRuns(rounds("go", 10, [1000, 1001]), rounds("go", 10, [950, 951]), 2).outcome).toBe("fail");
  });

  it("judges single rounds by the tolerance alone and says so; a saturated k6 makes throughput unclear", () => {
    resetCells();
    const single = judgeRuns(rounds("go", 10, [1000]), rounds("go", 10, [700]));
    expect(single.checks.find((c) => c.metric === "opsRps")).toMatchObject({
      outcome: "regressed",
      separation: null,
      note: expect.stringMatching(/single round/),
    });
    const saturated = rounds("rust", 64, [2400, 2410]).map((c) => ({ ...c, k6Saturated: true }));
    const verdict = judgeRuns(saturated, rounds("rust", 64, [1800, 1810]));
    expect(verdict.checks.find((c) => c.metric === "opsRps")).toMatchObject({
      outcome: "unclear",
      note: expect.stringMatching(/k6 was saturated/),
    });
    expect(verdict.outcome).toBe("pass");
  });

  it("calls a throughput or latency change measured on a busy machine unclear", () => {
    resetCells();
    const baseline = rounds("go", 10, [1000, 1010, 990], 10);
    const busy = rounds("go", 10, [800, 805, 795], 15).map((c) => ({ ...c, machineBusy: true }));
    const verdict = judgeRuns(baseline, busy, 10);
    for (const metric of ["opsRps", "p99Ms"]) {
      expect(verdict.checks.find((c) => c.metric === metric)).toMatchObject({
        outcome: "unclear",
        note: expect.stringMatching(/machine was busy/),
      });
    }
    expect(verdict.outcome).toBe("pass");
    // The same drop on a quiet machine fails.
    expect(judgeRuns(baseline, rounds("go", 10, [800, 805, 795], 15), 10).outcome).toBe("fail");
  });

  it("matches by workload, server and level of either model, lists what only one run measured, and is inconclusive with no match", () => {
    resetCells();
    const baseline = [
      ...rounds("go", 10, [1000]),
      openCell("go", 100, 1, summary(100, 5, 40e6)),
      ...rounds("node", 10, [900]),
    ];
    const candidate = [
      ...rounds("go", 10, [1000]),
      openCell("go", 100, 1, summary(100, 9, 40e6)),
      cell("go", 10, 1, summary(500, 5, 1), "succeeded", { tool: "fibonacci", arguments: { n: 20 } }),
    ];
    const verdict = judgeRuns(baseline, candidate);
    expect(verdict.checks.find((c) => c.rate === 100 && c.metric === "p99Ms")).toMatchObject({
      vus: null,
      outcome: "regressed",
    });
    expect(verdict.unmatched.map((u) => `${u.in} ${u.server} ${String(u.params.tool)}`).sort()).toEqual([
      "baseline node echo",
      "candidate go fibonacci",
    ]);
    expect(judgeRuns(rounds("go", 10, [1000]), rounds("go", 50, [1000])).outcome).toBe("inconclusive");
    // A failed cell has no result to compare, but failing where the baseline measured is a fail.
    expect(judgeRuns(rounds("go", 10, [1000]), [cell("go", 10, 1, null)]).outcome).toBe("fail");
  });

  it("fails a candidate that answers with errors, though it got faster doing so", () => {
    resetCells();
    const withErrors = (server: string, ops: number, errors: number) =>
      cell(server, 10, 1, { ...summary(ops, 10, 50e6), requests: 10_000, errors });
    const verdict = judgeRuns([withErrors("go", 1000, 5)], [withErrors("go", 1500, 900)]);
    expect(verdict.checks.find((c) => c.metric === "opsRps")?.outcome).toBe("improved");
    // 0.05 % → 9 %: 8.95 more failed requests in a hundred, beyond the 1-point tolerance.
    const errors = verdict.checks.find((c) => c.metric === "errorPct")!;
    expect(errors.outcome).toBe("regressed");
    expect(errors.changePct).toBeCloseTo(8.95, 5);
    expect(verdict.outcome).toBe("fail");
    // Half a point more is within the tolerance.
    expect(
      judgeRuns([withErrors("go", 1000, 5)], [withErrors("go", 1000, 55)]).checks.find(
        (c) => c.metric === "errorPct",
      )?.outcome,
    ).toBe("unchanged");
  });

  it("judges errors per call, so the tolerance means the same whether each call opens its own session", () => {
    resetCells();
    // 350 of 10,000 tool calls fail: per-VU sessions make that 10,000 requests, a session per call
    // (initialize, notification, call, DELETE) 40,000.
    const calls = (requests: number, errors: number) =>
      cell("go", 10, 1, { ...summary(1000, 10, 50e6), requests, ops: 10_000, errors });
    for (const requests of [10_000, 40_000]) {
      const errors = judgeRuns([calls(requests, 0)], [calls(requests, 350)]).checks.find(
        (c) => c.metric === "errorPct",
      )!;
      expect(errors.outcome, `${requests} requests`).toBe("regressed");
      expect(errors.changePct).toBeCloseTo(3.5, 9);
    }
  });

  it("fails a candidate whose cells failed where the baseline has a result, and names them", () => {
    resetCells();
    const baseline = [...rounds("go", 10, [1000]), ...rounds("node", 10, [900])];
    const crashed = { ...cell("node", 10, 1, null), error: "the server exited with code 137 (OOM-killed)" };
    const verdict = judgeRuns(baseline, [...rounds("go", 10, [1000]), crashed]);
    expect(verdict.outcome).toBe("fail");
    expect(verdict.failed).toEqual([
      expect.objectContaining({ server: "node", vus: 10, cells: 1, error: crashed.error }),
    ]);
    // A cancelled cell was stopped by someone, not by the server: not a failure.
    const cancelled = { ...cell("node", 10, 1, null, "cancelled"), error: null };
    expect(judgeRuns(baseline, [...rounds("go", 10, [1000]), cancelled]).outcome).toBe("pass");
  });

  it("calls a change of exactly the tolerance unchanged, whatever the floating point makes of it", () => {
    resetCells();
    // 100 → 93 ops/s is 7 %; ((93 − 100) ÷ 100) · 100 computes as −7.000000000000001.
    const ops = judgeRuns(rounds("go", 10, [100, 100]), rounds("go", 10, [93, 93]), 7);
    expect(ops.checks.find((c) => c.metric === "opsRps")).toMatchObject({
      outcome: "unchanged",
      changePct: -7,
    });
    expect(ops.outcome).toBe("pass");
    // 50 → 57 MB of peak RSS is 14 % (computed as 14.000000000000002).
    const rss = judgeRuns(rounds("go", 10, [1000], 10, 50e6), rounds("go", 10, [1000], 10, 57e6), 14);
    expect(rss.checks.find((c) => c.metric === "rssPeakBytes")?.outcome).toBe("unchanged");
    // 6 % → 7 % of 1,000 requests failed is 1 point, the errors' tolerance (0.07 · 100 is 7.000000000000001).
    const withErrors = (errors: number, requests = 1000) =>
      cell("go", 10, 1, { ...summary(1000, 10, 50e6), requests, errors });
    const errors = judgeRuns([withErrors(60)], [withErrors(70)]).checks.find((c) => c.metric === "errorPct")!;
    expect(errors.outcome).toBe("unchanged");
    expect(errors.changePct).toBe(1);
    // 2 of 300 → 5 of 300 is 1 point too, though neither share is exact in binary (1.0000000000000002).
    const thirds = judgeRuns([withErrors(4, 300)], [withErrors(7, 300)]);
    expect(thirds.checks.find((c) => c.metric === "errorPct")?.outcome).toBe("unchanged");
    // Just past it is not.
    expect(
      judgeRuns([withErrors(60)], [withErrors(71)]).checks.find((c) => c.metric === "errorPct")?.outcome,
    ).toBe("regressed");
    expect(judgeRuns(rounds("go", 10, [100, 100]), rounds("go", 10, [92.9, 92.9]), 7).outcome).toBe("fail");
  });

  it("does not judge a relative change from a baseline of 0", () => {
    resetCells();
    const verdict = judgeRuns(rounds("go", 10, [0]), rounds("go", 10, [50]));
    expect(verdict.checks.find((c) => c.metric === "opsRps")).toMatchObject({
      outcome: "unclear",
      changePct: 0,
    });
  });
});
