import { describe, expect, it } from "vitest";
import { isWellFormedText, unstorableTextIn } from "./fields.ts";
import { fieldErrors } from "./problem.ts";
import { ZUploadQueryChecked } from "./upload.ts";

const base = { server: "go", durationSec: "30" };

function errorsOf(query: Record<string, string>) {
  const result = ZUploadQueryChecked.safeParse(query);
  if (result.success) throw new Error(`expected ${JSON.stringify(query)} to be refused`);
  return fieldErrors(result.error);
}

describe("upload query", () => {
  it("reads numbers from the query string's text and fills the defaults", () => {
    expect(ZUploadQueryChecked.parse({ ...base, warmupSec: " 5 ", k6Requests: "1200" })).toMatchObject({
      server: "go",
      durationSec: 30,
      warmupSec: 5,
      k6Requests: 1200,
      driver: "local",
    });
    expect(ZUploadQueryChecked.parse(base).warmupSec).toBe(0);
  });

  it("takes a format the lab reads and refuses another by name", () => {
    expect(ZUploadQueryChecked.parse({ ...base, format: "k6-json" }).format).toBe("k6-json");
    expect(errorsOf({ ...base, format: "csv" })).toEqual([
      { field: "format", message: "must be one of perflab, k6-summary-export, k6-handle-summary, k6-json" },
    ]);
  });

  it.each(["durationSec", "warmupSec", "vus", "k6Requests"])(
    "refuses a blank %s by name instead of reading it as 0",
    (key) => {
      for (const blank of ["", " "]) {
        expect(errorsOf({ ...base, [key]: blank })).toEqual([{ field: key, message: "must be a number" }]);
      }
    },
  );

  it("refuses the open model's blank numbers by name too", () => {
    for (const key of ["rate", "maxVus", "droppedCalls"]) {
      expect(errorsOf({ ...base, rate: "100", [key]: "" })).toContainEqual({
        field: key,
        message: "must be a number",
      });
    }
  });

  it("still names a value that is not a whole number", () => {
    expect(errorsOf({ ...base, durationSec: "soon" })).toEqual([
      { field: "durationSec", message: "must be a number" },
    ]);
    expect(errorsOf({ ...base, warmupSec: "1.5" })).toEqual([
      { field: "warmupSec", message: "must be a whole number" },
    ]);
  });

  it("trims git fields and refuses blank ones", () => {
    expect(ZUploadQueryChecked.parse({ ...base, gitRepo: " acme/app ", gitPr: " 7 " })).toMatchObject({
      gitRepo: "acme/app",
      gitPr: "7",
    });
    expect(errorsOf({ ...base, gitBranch: " " })).toEqual([
      { field: "gitBranch", message: "must not be empty" },
    ]);
  });
});

describe("text the lab cannot store", () => {
  const SURROGATE = "must not contain an unpaired surrogate (\\ud800–\\udfff)";

  it("refuses an unpaired surrogate in a name, a tag or the tool's arguments, naming the field", () => {
    expect(errorsOf({ ...base, tool: "echo\ud800" })).toEqual([{ field: "tool", message: SURROGATE }]);
    expect(errorsOf({ ...base, arguments: '{"m": "\\udfff"}' })).toEqual([
      { field: "arguments", message: SURROGATE },
    ]);
    expect(errorsOf({ ...base, arguments: '{"m": "a\\u0000"}' })).toEqual([
      { field: "arguments", message: "must not contain a NUL character" },
    ]);
    // A surrogate pair is one character, and stays.
    const pair = ZUploadQueryChecked.parse({ ...base, tool: "🚀", arguments: '{"m": "\\ud83d\\ude80"}' });
    expect([pair.tool, pair.arguments]).toEqual(["🚀", { m: "🚀" }]);
  });

  it("finds where in a value it sits, keys included", () => {
    expect(unstorableTextIn({ a: [1, { b: "x\ud800" }] })).toEqual({
      path: ["a", 1, "b"],
      message: SURROGATE,
    });
    expect(unstorableTextIn({ a: { "k\udc00": 1 } })?.path).toEqual(["a"]);
    expect(unstorableTextIn({ a: ["🚀", "plain"] })).toBeNull();
    expect(isWellFormedText("\ud83d\ude80")).toBe(true);
    expect(isWellFormedText("\ude80\ud83d")).toBe(false);
  });
});

describe("git fields", () => {
  it("count their UTF-8 bytes too, which the runs table's indexes are limited by", () => {
    const wide = "漢".repeat(334); // 1,002 bytes in 334 characters
    expect(errorsOf({ ...base, gitRepo: wide })).toEqual([
      { field: "gitRepo", message: "must be at most 1000 bytes in UTF-8" },
    ]);
    expect(errorsOf({ ...base, gitBranch: wide })[0]?.field).toBe("gitBranch");
    const fits = ZUploadQueryChecked.parse({
      ...base,
      gitRepo: "漢".repeat(333),
      gitBranch: "b".repeat(500),
    });
    expect([fits.gitRepo?.length, fits.gitBranch?.length]).toEqual([333, 500]);
  });
});
