import { describe, expect, it } from "vitest";
import type { PointDto } from "./dto";
import { overlayGroups, overlayRows } from "./overlay";
import { pointAt } from "./point-fixture";

const point = (cellId: string, second: number, over: Partial<PointDto> = {}) =>
  pointAt(second, { cellId, rssBytes: 2 * 1024 * 1024, ...over });

const cell = (
  id: string,
  index: number,
  serverName: string,
  vus: number,
  over: Record<string, unknown> = {},
) => ({
  id,
  index,
  serverName,
  vus,
  round: 1,
  scenario: "mcp-tool-call",
  params: { tool: "echo", arguments: { message: "hi" } },
  warmupSeconds: 2,
  durationSeconds: 10,
  ...over,
});

const series = (cellId: string, seconds: number[]) => seconds.map((s) => point(cellId, s));

describe("overlayGroups", () => {
  it("groups cells of one workload and load level, lines in the run's server order", () => {
    const cells = [
      cell("a", 0, "go", 10),
      cell("b", 1, "node", 10),
      cell("c", 2, "go", 20),
      cell("d", 3, "node", 20),
    ];
    const points = Object.fromEntries(cells.map((c) => [c.id, series(c.id, [0, 1, 2])]));
    const groups = overlayGroups(cells, points, ["node", "go"]);
    expect(groups.map((g) => g.label)).toEqual(["echo · 10 VUs", "echo · 20 VUs"]);
    expect(groups[0]!.lines.map((l) => [l.cellId, l.label])).toEqual([
      ["b", "node"],
      ["a", "go"],
    ]);
    expect(groups[0]!.warmupSeconds).toBe(2);
    expect(groups[0]!.endSecond).toBe(12);
  });

  it("keeps an open-model level apart from a closed one of the same number, and labels it in calls/s", () => {
    const cells = [
      cell("a", 0, "go", 50),
      cell("b", 1, "node", 50),
      cell("c", 2, "go", 0, { vus: null, rate: 50, maxVus: 10 }),
      cell("d", 3, "node", 0, { vus: null, rate: 50, maxVus: 10 }),
      // A cell without a level of either model.
      cell("e", 4, "go", 0, { vus: null, rate: null }),
      cell("f", 5, "node", 0, { vus: null }),
    ];
    const points = Object.fromEntries(cells.map((c) => [c.id, series(c.id, [0, 1])]));
    const groups = overlayGroups(cells, points);
    expect(groups.map((g) => [g.label, g.lines.map((l) => l.cellId)])).toEqual([
      ["echo · 50 VUs", ["a", "b"]],
      ["echo · 50 calls/s", ["c", "d"]],
      ["echo", ["e", "f"]],
    ]);
    expect(new Set(groups.map((g) => g.key)).size).toBe(3);
  });

  it("keeps different tools or arguments apart, and leaves out cells without points and lone cells", () => {
    const cells = [
      cell("a", 0, "go", 10),
      cell("b", 1, "node", 10, { params: { tool: "fibonacci", arguments: { n: 25 } } }),
      cell("c", 2, "python", 10),
      cell("d", 3, "rust", 10),
    ];
    const points = { a: series("a", [0, 1]), b: series("b", [0]), c: [], d: series("d", [0, 1, 2]) };
    const groups = overlayGroups(cells, points);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.lines.map((l) => l.cellId)).toEqual(["a", "d"]);
  });

  it("names rounds when a group has more than one, and ends at warm-up + duration", () => {
    const cells = [cell("a", 0, "go", 10), cell("b", 1, "go", 10, { round: 2 })];
    // Second 12 holds the fraction of a second the load reached into, 14 a call still finishing.
    const points = { a: series("a", [0, 1]), b: series("b", [0, 1, 2, 11, 12, 14]) };
    const [group] = overlayGroups(cells, points);
    expect(group!.lines.map((l) => l.label)).toEqual(["go · r1", "go · r2"]);
    expect(group!.endSecond).toBe(12);
    expect(overlayRows(group!, points, "rps").map((r) => r.second)).toEqual([0, 1, 2, 11]);
  });
});

describe("overlayRows", () => {
  it("merges the cells' seconds into rows, empty where a cell recorded nothing", () => {
    const cells = [cell("a", 0, "go", 10), cell("b", 1, "node", 10)];
    const points = {
      a: [point("a", 0, { p99: 4 }), point("a", 1, { p99: 5 }), point("a", 3, { p99: 7 })],
      b: [point("b", 1, { p99: 9 }), point("b", 2, { p99: 8 })],
    };
    const [group] = overlayGroups(cells, points);
    expect(overlayRows(group!, points, "p99")).toEqual([
      { second: 0, a: 4 },
      { second: 1, a: 5, b: 9 },
      { second: 2, b: 8 },
      { second: 3, a: 7 },
    ]);
  });

  it("gives memory in MB and keeps a missing reading as null", () => {
    const cells = [cell("a", 0, "go", 10), cell("b", 1, "node", 10)];
    const points = {
      a: [point("a", 0, { rssBytes: 3 * 1024 * 1024 })],
      b: [point("b", 0, { rssBytes: null })],
    };
    const [group] = overlayGroups(cells, points);
    expect(overlayRows(group!, points, "rss")).toEqual([{ second: 0, a: 3, b: null }]);
  });
});
