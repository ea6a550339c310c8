import { readFileSync } from "node:fs";
import { ZCellSummaryData, ZK6OutputLine, ZSecondPoint, ZUploadQueryChecked } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { decodeHistogram } from "../histogram.ts";
import { parseK6Output } from "./decoder.ts";
import { uploadRecord } from "./upload.ts";

/**
 * The lines perflab's k6 output (Go) writes for a fixed short run, checked byte for byte by its own
 * test (packages/k6-output/golden_test.go): here the schema, histogram decoding and the decoder must
 * read every field of them, so a field renamed or added on one side fails on the other.
 */
const golden = readFileSync(new URL("../../../k6-output/testdata/golden.ndjson", import.meta.url), "utf8");
const raws = golden.split("\n").filter(Boolean);

describe("the golden k6 output", () => {
  it("is read by the schema field for field, nothing left out or defaulted", () => {
    expect(raws.map((raw) => (JSON.parse(raw) as { type: string }).type)).toEqual([
      "start",
      "run",
      "interval",
      "interval",
      "interval",
      "interval",
      "end",
    ]);
    for (const raw of raws) {
      const json: unknown = JSON.parse(raw);
      expect(ZK6OutputLine.parse(json), raw).toEqual(json);
    }
  });

  it("has histograms that decode to the requests of their group, in microseconds", () => {
    for (const raw of raws) {
      const line = ZK6OutputLine.parse(JSON.parse(raw));
      if (line.type !== "interval") continue;
      for (const group of line.groups) {
        expect(decodeHistogram(group.hist).totalCount, raw).toBe(group.requests);
      }
    }
    const measured = ZK6OutputLine.parse(JSON.parse(raws[4]!));
    const echo = measured.type === "interval" ? measured.groups[0]! : null;
    expect(echo).toMatchObject({
      phase: "measure",
      method: "tools/call",
      tool: "echo",
      failed: 1,
      opErrors: 1,
    });
    const hist = decodeHistogram(echo!.hist);
    expect(hist.minNonZeroValue).toBeCloseTo(1_100, -1);
    expect(hist.maxValue).toBeCloseTo(4_400, -1);
  });

  it("decodes into the run's window, counts and percentiles", () => {
    const output = parseK6Output(golden, { warmupSeconds: 1, measuredSeconds: 2 });
    expect(output).toMatchObject({
      start: { k6: "1.8.1", t: 1_699_999_998_500 },
      testStartMs: 1_699_999_999_700,
      lines: 7,
      maxVus: 2,
      lastT: 1_700_000_002,
      measured: { firstT: 1_700_000_001, lastT: 1_700_000_002 },
    });
    expect(output.points.map((p) => [p.t, p.requests])).toEqual([
      [1_699_999_999, 0],
      [1_700_000_000, 2],
      [1_700_000_001, 3],
      [1_700_000_002, 3],
    ]);
    // The points are what the shared schema of a second says, field for field.
    expect(ZSecondPoint.array().parse(output.points)).toEqual(output.points);
    const summary = output.aggregator.summary({ durationSec: 2 });
    expect(ZCellSummaryData.parse(summary)).toEqual(summary);
    expect(summary).toMatchObject({ requests: 6, ops: 5, errors: 1, droppedCalls: 2, dataSent: 870 });
    expect(summary.latency.maxMs).toBeCloseTo(250, 0);
    expect(summary.latency.p50).toBeCloseTo(2.2, 1);

    const meta = ZUploadQueryChecked.parse({
      server: "go",
      durationSec: "2",
      warmupSec: "1",
      k6Requests: "6",
    });
    const record = uploadRecord(meta, output, Buffer.byteLength(golden));
    expect(record.spec.upload).toEqual({ k6Version: "1.8.1", lines: 7, bytes: Buffer.byteLength(golden) });
    expect(record.loadLevel).toEqual({ vus: 2 });
    expect(record.params).toMatchObject({ tool: "echo" });
    expect(record.measureStartedAt.getTime()).toBe(1_700_000_000_700);
  });
});
