import { describe, expect, it } from "vitest";
import { pathWithQuery, signInPath } from "./sign-in";

describe("the way back from the sign-in form", () => {
  it("keeps the page's path and query, every value of a repeated parameter", () => {
    expect(pathWithQuery("/runs/abc", {})).toBe("/runs/abc");
    expect(pathWithQuery("/compare", { runs: ["a", "b"], tolerance: "5", gone: undefined })).toBe(
      "/compare?runs=a&runs=b&tolerance=5",
    );
    expect(signInPath("/compare?runs=a,b")).toBe("/sign-in?next=%2Fcompare%3Fruns%3Da%2Cb");
  });
});
