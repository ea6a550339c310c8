import { describe, expect, it } from "vitest";
import { K6_SCRIPT_MAX_BYTES, ZCreateK6Script } from "./k6-script.ts";

const fields = (input: unknown) => {
  const result = ZCreateK6Script.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
};

describe("a k6 script to store", () => {
  it("takes a plain name and the script's text", () => {
    expect(fields({ name: "my-load.v2", source: "export default function () {}" })).toEqual([]);
  });

  it("refuses names with spaces or slashes, and text Postgres cannot keep or that is too large", () => {
    const source = "export default function () {}";
    expect(fields({ name: "../x", source })).toEqual(["name"]);
    expect(fields({ name: "my load", source })).toEqual(["name"]);
    expect(fields({ name: "x", source: "" })).toEqual(["source"]);
    expect(fields({ name: "x", source: "a\u0000b" })).toEqual(["source"]);
    expect(fields({ name: "x", source: "\ud800" })).toEqual(["source"]);
    expect(fields({ name: "x", source: "é".repeat(K6_SCRIPT_MAX_BYTES / 2 + 1) })).toEqual(["source"]);
    expect(fields({ name: "x", source, extra: 1 })).toEqual([""]);
  });
});
