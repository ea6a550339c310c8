import { describe, expect, it } from "vitest";
import type { RunDto } from "@/lib/dto";
import { compareRunRows } from "./compare-run-rows";

const run = (id: string, spec: object) =>
  ({
    id,
    name: `go · ${id}`,
    status: "succeeded",
    createdAt: "2026-01-01T00:00:00.000Z",
    spec: { servers: ["go"], ...spec },
  }) as unknown as Pick<RunDto, "id" | "name" | "status" | "createdAt" | "spec">;

const k6Summary = {
  latencyMetric: null,
  requestsMetric: "http_reqs",
  testRunDurationMs: 30_000,
  metrics: {},
};
const upload = (format: string, summary: boolean) => ({
  upload: { format, compressed: false, lacks: [], ...(summary ? { k6Summary } : {}) },
});

describe("the compared runs' list", () => {
  it("says beside a run uploaded as a k6 summary why the comparison has no latency for it", () => {
    const rows = compareRunRows(
      [
        { run: run("r1", {}), commit: "3f2a9c1d0e4b5a6f", branch: "main" },
        { run: run("r2", upload("k6-summary-export", true)), commit: null, branch: null },
        { run: run("r3", upload("k6-json", false)), commit: "abc", branch: null },
      ],
      new Map([
        ["r1", "3f2a9c1"],
        ["r2", "r2"],
        ["r3", "abc"],
      ]),
    );
    expect(rows.map((r) => r.unusable)).toEqual([
      null,
      "uploaded as a k6 summary (k6-summary-export): its percentiles are k6's own, not a histogram, so this comparison has no latency for it",
      null,
    ]);
    expect(rows.map((r) => [r.tag, r.commit])).toEqual([
      ["3f2a9c1", "3f2a9c1d0e4b (main)"],
      ["r2", null],
      ["abc", "abc"],
    ]);
  });
});
