import { describe, expect, it } from "vitest";
import { fieldErrors } from "./problem.ts";
import { REPORT_SLUG, ZCreateReport, ZReportListQuery } from "./report.ts";

function errorsOf(input: unknown) {
  const result = ZCreateReport.safeParse(input);
  if (result.success) throw new Error("expected the request to be rejected");
  return fieldErrors(result.error);
}

describe("create report request", () => {
  it("defaults visibility to unlisted and trims text", () => {
    expect(ZCreateReport.parse({ runId: " r1 ", title: " Go " })).toEqual({
      runId: "r1",
      title: "Go",
      visibility: "unlisted",
    });
  });

  it("names the field of each bad value", () => {
    expect(errorsOf({})[0]?.field).toBe("runId");
    expect(errorsOf({ runId: 7 })[0]?.field).toBe("runId");
    expect(errorsOf({ runId: "r", title: "x".repeat(201) })[0]?.field).toBe("title");
    expect(errorsOf({ runId: "r", visibility: "world" })[0]?.field).toBe("visibility");
    expect(errorsOf("r1")).toEqual([{ field: "(body)", message: "must be a JSON object" }]);
  });

  it("refuses an unknown key by name rather than dropping it (a misspelt visibility stays unlisted)", () => {
    expect(errorsOf({ runId: "r", visiblity: "private" })).toEqual([
      { field: "visiblity", message: "is not a known field" },
    ]);
  });

  it("takes the three visibilities, private among them (the server checks who asks)", () => {
    for (const visibility of ["private", "unlisted", "public"]) {
      expect(ZCreateReport.parse({ runId: "r", visibility }).visibility).toBe(visibility);
    }
    expect(errorsOf({ runId: "r", visibility: "world" })[0]?.message).toBe(
      "must be one of private, unlisted, public",
    );
  });

  it("accepts only base64url slugs of at least 128 bits", () => {
    expect(REPORT_SLUG.test("qXOTFlBeLtsEkiuznHSmvA")).toBe(true);
    expect(REPORT_SLUG.test("short")).toBe(false);
    expect(REPORT_SLUG.test("../../etc/passwd/xxxxxxxxxx")).toBe(false);
  });
});

describe("report list query", () => {
  it("defaults the limit to 50, trims the run id and ignores unknown parameters", () => {
    expect(ZReportListQuery.parse({ other: "x" })).toEqual({ limit: 50 });
    expect(ZReportListQuery.parse({ runId: " r1 ", limit: "200" })).toEqual({ runId: "r1", limit: 200 });
  });

  it.each([
    [{ limit: "0" }, "limit", "must be at least 1"],
    [{ limit: "201" }, "limit", "must be at most 200"],
    [{ limit: "ten" }, "limit", "must be a number"],
    [{ runId: " " }, "runId", "must be a run id"],
  ])("rejects %j naming %s", (input, field, message) => {
    const result = ZReportListQuery.safeParse(input);
    expect(result.success).toBe(false);
    if (!result.success) expect(fieldErrors(result.error)).toEqual([{ field, message }]);
  });
});
