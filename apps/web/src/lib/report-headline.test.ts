import { describe, expect, it } from "vitest";
import { cell, resetCells, summary } from "./cell-fixtures";
import { reportHeadline } from "./report-headline";

describe("a report's preview headline", () => {
  it("compares the servers at the highest load level against the fastest, in the run's order", () => {
    resetCells();
    const cells = [
      cell("go", 10, 0, summary(900, 2, 1)),
      cell("node", 10, 0, summary(300, 9, 1)),
      cell("go", 50, 0, summary(2000, 5, 1)),
      cell("go", 50, 1, summary(1000, 7, 1)),
      cell("node", 50, 0, summary(500, 20, 1)),
    ];
    const headline = reportHeadline(cells, ["node", "go"]);
    expect(headline?.level).toBe("50 VUs");
    expect(headline?.scenario).toBe("mcp-tool-call · echo");
    expect(headline?.bars.map((b) => [b.serverName, b.opsRps, b.p99Ms, b.ratio, b.fastest])).toEqual([
      ["node", 500, 20, 500 / 1500, false],
      ["go", 1500, 6, 1, true],
    ]);
  });

  it("is null when no cell has a result", () => {
    resetCells();
    expect(reportHeadline([cell("go", 10, 0, null)])).toBeNull();
  });
});
