import { constants } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { isGcCollection } from "../src/runtime-info.js";

describe("gc_count", () => {
  it("counts completed collections, not V8's incremental marking steps or weak-callback entries", () => {
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_MINOR)).toBe(true);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_MAJOR)).toBe(true);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_INCREMENTAL)).toBe(false);
    expect(isGcCollection(constants.NODE_PERFORMANCE_GC_WEAKCB)).toBe(false);
    expect(isGcCollection(undefined)).toBe(false);
  });
});
