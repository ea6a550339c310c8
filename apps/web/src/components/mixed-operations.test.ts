import { describe, expect, it } from "vitest";
import { cell, summary } from "@/lib/cell-fixtures";
import { mixedOperations } from "./mixed-operations";

const op = (method: string, tool: string, count: number) => ({
  method,
  tool,
  count,
  errors: 0,
  p50: 1,
  p90: 2,
  p95: 3,
  p99: 4,
  avgMs: 1.5,
});

describe("the operations table", () => {
  it("lists a mix's operations by method and tool, and nothing for a cell that called one tool", () => {
    const mix = [op("initialize", "", 10), op("tools/call", "echo", 60), op("tools/call", "fibonacci", 20)];
    expect(mixedOperations(cell("go", 4, 1, { ...summary(100, 4, null), operations: mix }))).toEqual(mix);
    const single = [op("initialize", "", 4), op("tools/call", "echo", 400)];
    expect(mixedOperations(cell("go", 4, 1, { ...summary(100, 4, null), operations: single }))).toBeNull();
    expect(mixedOperations(cell("go", 4, 1, null))).toBeNull();
    expect(mixedOperations(cell("go", 4, 1, { ...summary(100, 4, null), operations: "junk" }))).toBeNull();
  });
});
