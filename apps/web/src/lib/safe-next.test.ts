import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

describe("where sign-in goes next", () => {
  it("keeps a path of this site, with its query and hash", () => {
    expect(safeNext("/runs/abc?tolerance=5#verdict")).toBe("/runs/abc?tolerance=5#verdict");
    expect(safeNext(["/settings/tokens", "/x"])).toBe("/settings/tokens");
  });

  it.each([
    undefined,
    "",
    "runs",
    "https://evil.example/",
    "//evil.example",
    "/\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/%09/evil.example",
    "\t//evil.example",
  ])("sends %j home rather than off the site", (value) => {
    const next = safeNext(value);
    expect(next.startsWith("/")).toBe(true);
    expect(new URL(next, "http://lab.test").host).toBe("lab.test");
  });
});
