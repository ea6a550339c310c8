import { describe, expect, it } from "vitest";
import { seriesChartLabel } from "./chart-label";

describe("seriesChartLabel", () => {
  const series = [
    { key: "a", name: "go · r1" },
    { key: "b", name: "go · r2" },
  ];

  it("names the chart and each line's range, numbers as the charts print them", () => {
    const rows = [
      { second: 0, a: 100, b: 8 },
      { second: 1, a: 3812.5, b: null },
      { second: 2, a: 2000, b: 9.5 },
    ];
    expect(seriesChartLabel("Throughput", "calls/s", rows, series, 2)).toBe(
      "Throughput (calls/s) over 2 s: go · r1 100.0–3,812.5; go · r2 8.00–9.50",
    );
  });

  it("says when a line, or the chart, has nothing to draw yet", () => {
    expect(seriesChartLabel("CPU", "%", [{ second: 0, a: 1, b: null }], series, 5)).toBe(
      "CPU (%) over 5 s: go · r1 1.00–1.00; go · r2 no values",
    );
    expect(seriesChartLabel("CPU", "%", [], series, 10)).toBe("CPU (%): no points yet");
  });
});
