import { describe, expect, it } from "vitest";
import { buildHint } from "./build-hint";

describe("a server's native build hint", () => {
  it("says the state and roughly how long the last build here took", () => {
    expect(buildHint({ state: "built", lastSeconds: 34.2 })).toBe("built · a build takes ~34 s");
    expect(buildHint({ state: "building", lastSeconds: 271 })).toBe("building now · takes ~5 min");
    expect(buildHint({ state: "not built", lastSeconds: 95 })).toBe("not built · a build takes ~2 min");
  });

  it("says so when this machine has never finished a build of it", () => {
    expect(buildHint({ state: "building", lastSeconds: null })).toBe("building now (its first build here)");
    expect(buildHint({ state: "not built", lastSeconds: null })).toBe("not built yet");
    expect(buildHint({ state: "built", lastSeconds: null })).toBe("built");
    expect(buildHint({ state: "failed", lastSeconds: 40 })).toBe("build failed (see above)");
  });
});
