import { describe, expect, it } from "vitest";
import { decodeRunCursor, encodeRunCursor, splitRunIds, ZRunListQuery, ZRunsComparisonQuery } from "./api.ts";
import { fieldErrors } from "./problem.ts";

function errorsOf(input: unknown) {
  const result = ZRunListQuery.safeParse(input);
  if (result.success) throw new Error("expected the query to be rejected");
  return fieldErrors(result.error);
}

describe("run list query", () => {
  it("defaults the limit to 20 and ignores unknown parameters", () => {
    expect(ZRunListQuery.parse({ other: "x" })).toEqual({ limit: 20 });
  });

  it("coerces the limit from the query string and keeps the filters", () => {
    const cursor = encodeRunCursor({ createdAt: new Date("2026-01-02T03:04:05.678Z"), id: "cabc123" });
    expect(
      ZRunListQuery.parse({ limit: "100", status: "failed", gitRepo: "acme/app", gitBranch: "main", cursor }),
    ).toEqual({ limit: 100, status: "failed", gitRepo: "acme/app", gitBranch: "main", cursor });
  });

  it.each([
    ["0", "must be at least 1"],
    ["101", "must be at most 100"],
    ["2.5", "must be a whole number"],
    ["ten", "must be a number"],
    ["0x10", "must be a number"],
    ["Infinity", "must be a number"],
    ["", "must be a number"],
  ])("rejects limit=%s", (limit, message) => {
    expect(errorsOf({ limit })).toEqual([{ field: "limit", message }]);
  });

  it("names each bad parameter", () => {
    const fields = errorsOf({ status: "done", cursor: "nope", gitRepo: " " }).map((e) => e.field);
    expect(fields.sort()).toEqual(["cursor", "gitRepo", "status"]);
  });
});

describe("run cursor", () => {
  it("round-trips the position", () => {
    const position = { createdAt: new Date("2026-11-22T18:00:00.123Z"), id: "cm1x2y3z" };
    expect(decodeRunCursor(encodeRunCursor(position))).toEqual(position);
  });

  it.each(["", "abc", "12.", ".abc", "1.a b", `${"9".repeat(16)}.x`])("rejects %j", (value) => {
    expect(decodeRunCursor(value)).toBeNull();
  });
});

describe("splitRunIds", () => {
  it("takes comma-separated or repeated ids, trimmed, distinct and in order", () => {
    expect(splitRunIds(" a, b ,,a")).toEqual(["a", "b"]);
    expect(splitRunIds(["a,b", "c", "b"])).toEqual(["a", "b", "c"]);
    expect(splitRunIds(undefined)).toEqual([]);
    expect(ZRunsComparisonQuery.safeParse({ runs: "a,a" }).success).toBe(false);
    expect(ZRunsComparisonQuery.parse({ runs: "b, a" }).runs).toEqual(["b", "a"]);
  });
});
