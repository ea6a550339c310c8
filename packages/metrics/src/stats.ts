/**
 * Mean and maximum of a series with gaps (a second without a reading is null), shared by the
 * stored rollups and the charts' in-browser downsampling. No dependencies: the web bundle imports it.
 */
export function meanOf(values: readonly (number | null)[]): number | null {
  let sum = 0;
  let count = 0;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    count++;
  }
  return count ? sum / count : null;
}

/** The largest present value (a loop, not Math.max(...values): a day of seconds overflows the stack). */
export function maxOf(values: readonly (number | null)[]): number | null {
  let best: number | null = null;
  for (const v of values) if (v !== null && (best === null || v > best)) best = v;
  return best;
}

/**
 * Calls per second per core of server CPU (ops/s ÷ CPU % / 100): throughput comparable even where
 * k6, not the server, set the ceiling. Null without a CPU reading (an upload without one, an idle server).
 */
export function opsPerCpuSecond(summary: { opsRps: number; cpuAvgPct: number | null }): number | null {
  const cpu = summary.cpuAvgPct;
  return cpu !== null && cpu > 0 ? summary.opsRps / (cpu / 100) : null;
}
