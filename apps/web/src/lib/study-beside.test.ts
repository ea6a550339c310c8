import { findStudy, studyMatrix } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { cell, summary } from "./cell-fixtures";
import type { CellDto } from "./dto";
import { studyBeside } from "./study-beside";

const route = { route: "/rest/users/{id}" };
const at = (
  server: string,
  vus: number,
  rps: number,
  p99: number,
  round = 1,
  flags: Partial<CellDto> = {},
) => ({
  ...cell(server, vus, round, summary(rps, p99, 50 * 2 ** 20), "succeeded", route),
  scenario: "http-route",
  ...flags,
});

describe("a study's figures beside the run's", () => {
  const { spec } = studyMatrix(findStudy("rest-postgres")!, "quick", ["chi", "fastify", "go", "node"]);

  it("puts every row of the study, the lab's extras after, at each level it printed", () => {
    const cells = [at("chi", 100, 9000, 20), at("fastify", 100, 6000, 30), at("go", 100, 7000, 25)];
    const tables = studyBeside(spec, cells);
    expect(tables.map((t) => [t.scenario, t.level.vus, t.metric])).toEqual([
      [0, 100, "rps"],
      [0, 500, "rps"],
    ]);
    const [first] = tables;
    expect(first!.rows.map((r) => [r.label, r.extra, r.published, r.lab])).toEqual([
      ["Go (Chi)", false, 14_820, 9000],
      ["Node.js (Fastify)", false, 11_340, 6000],
      ["go", true, null, 7000],
      ["node", true, null, null],
    ]);
    // Shares of each side's best: the study's Fastify did 11,340 / 14,820 of Chi's.
    expect(first!.rows[1]!.studyShare).toBeCloseTo(11_340 / 14_820);
    expect(first!.rows[1]!.labShare).toBeCloseTo(6000 / 9000);
    expect(first!.compared).toBe(2);
    expect(first!.swapped).toEqual([]);
  });

  it("names the pairs the lab orders the other way round, and what may explain it", () => {
    const cells = [
      at("chi", 100, 5000, 20, 1, { k6Saturated: true }),
      at("chi", 100, 5200, 20, 2, { k6Saturated: true }),
      at("fastify", 100, 6000, 30, 1, { warmingUp: true }),
    ];
    const [first] = studyBeside(spec, cells);
    expect(first!.swapped).toEqual([["Go (Chi)", "Node.js (Fastify)"]]);
    expect(first!.rows[0]!.lab).toBe(5100);
    expect(first!.rows[0]!.flags).toEqual(["k6 saturated (2 of 2 rounds)"]);
    expect(first!.rows[1]!.flags).toEqual(["still warming up"]);
  });

  it("says why a row was not run: not in this run, or no server for it anywhere", () => {
    const io = studyMatrix(findStudy("io-tools")!, "quick", ["rust", "go"]).spec;
    const [first] = studyBeside(io, []);
    const row = (label: string) => first!.rows.find((r) => r.label === label)!;
    expect(row("rust").missing).toBeNull();
    expect(row("bun").missing).toBe("not in this run");
    expect(row("java-native").missing).toMatch(/GraalVM/);
    // The study printed its three tools as one mixed load: the note says so.
    expect(first!.note).toMatch(/mixed/);
    expect(row("rust").published).toBe(4845);
  });

  it("compares latency where the study printed only latency, the lower the better", () => {
    const cpu = studyMatrix(findStudy("cpu-and-io-tools")!, "quick", [
      "go",
      "node",
      "express",
      "go-mcp-go",
    ]).spec;
    const tables = studyBeside(cpu, []);
    expect(tables.map((t) => t.metric)).toEqual(["p99Ms", "p99Ms"]);
    const shares = tables[0]!.rows.filter((r) => !r.extra).map((r) => r.studyShare);
    // Node's p99 of 80 ms against Go's 8 ms: a tenth of the best.
    expect(shares).toEqual([0.1, 1]);
  });

  it("has nothing to show for a run that reproduces no study", () => {
    expect(studyBeside({ ...spec, study: undefined }, [])).toEqual([]);
  });
});
