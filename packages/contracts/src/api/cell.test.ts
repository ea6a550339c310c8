import { describe, expect, it } from "vitest";
import { rpsPerMb, sessionDropPct } from "./cell.ts";

const op = (method: string, count: number, errors: number) => ({ method, tool: "", count, errors });

describe("sessionDropPct", () => {
  it("counts sessions opened but not ended by an answered DELETE, in % of those opened", () => {
    // 200 initialize, 10 of them failed (never opened); 190 DELETEs, 19 answered 404 (dropped).
    const operations = [op("initialize", 200, 10), op("tools/call", 190, 0), op("DELETE", 190, 19)];
    expect(sessionDropPct(operations)).toBe(10);
    expect(sessionDropPct([op("initialize", 50, 0), op("DELETE", 50, 0)])).toBe(0);
  });

  it("is null where the client ends no session in the window, or opened none", () => {
    // Sessions held for the whole test: no DELETE in the measured window.
    expect(sessionDropPct([op("initialize", 20, 0), op("tools/call", 900, 0)])).toBeNull();
    expect(sessionDropPct([op("tools/call", 900, 0)])).toBeNull();
    expect(sessionDropPct([op("initialize", 5, 5), op("DELETE", 0, 0)])).toBeNull();
    expect(sessionDropPct(null)).toBeNull();
  });
});

describe("rpsPerMb", () => {
  it("divides HTTP requests per second by the mean RSS in MB (10^6 bytes)", () => {
    expect(rpsPerMb({ httpRps: 5_000, rssAvgBytes: 20_000_000 })).toBe(250);
    expect(rpsPerMb({ httpRps: 5_000, rssAvgBytes: null })).toBeNull();
    expect(rpsPerMb({ httpRps: 5_000, rssAvgBytes: 0 })).toBeNull();
  });
});
