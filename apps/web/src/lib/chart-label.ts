import { formatDuration, formatMeasure } from "./format";

/**
 * What a time-series chart shows, for a screen reader (the chart itself is a picture): each line's
 * range over the seconds drawn, "Throughput (calls/s) over 40 s: RPS 0.00–3,812.5".
 */
export function seriesChartLabel(
  title: string,
  unit: string,
  rows: readonly Record<string, number | null>[],
  series: readonly { key: string; name: string }[],
  endSecond: number,
): string {
  if (rows.length === 0) return `${title} (${unit}): no points yet`;
  const ranges = series.map((s) => {
    const values = rows.map((r) => r[s.key]).filter((v): v is number => typeof v === "number");
    if (values.length === 0) return `${s.name} no values`;
    return `${s.name} ${formatMeasure(Math.min(...values))}–${formatMeasure(Math.max(...values))}`;
  });
  return `${title} (${unit}) over ${formatDuration(endSecond)}: ${ranges.join("; ")}`;
}
