/**
 * An open-connection storm's figures per level (k6/connection-storm.js): the streams the k6 summary
 * counted, and what a process (the server, or the load generator itself) held while they were open.
 */

/** When one level opened, was held and ended, in seconds from the test's start (the script's plan). */
export type StormPlanLevel = { level: number; holdFromSec: number; holdToSec: number; startSec: number };

/** What the script's handleSummary writes (SUMMARY_PATH) that the figures need. */
export type StormSummary = {
  setup_data: { startMs: number; plan: StormPlanLevel[] };
  metrics: Record<string, { values: Record<string, number> } | undefined>;
};

/** One reading of a process while the storm ran: when (Unix ms), its RSS and its open descriptors. */
export type ProcessReading = { atMs: number; rssBytes: number; fds: number };

export type Percentiles = { p50: number; p90: number; p99: number };

export type StormLevelCounts = {
  level: number;
  established: number;
  failed: number;
  /** Established streams the server ended before their hold did. */
  dropped: number;
  /** Established streams that carried no event: their response stood for the first one. */
  silent: number;
  establishMs: Percentiles | null;
  firstEventMs: Percentiles | null;
};

/** A process at one level: RSS and descriptors while the level was held, and what each stream added. */
export type LevelFootprint = {
  level: number;
  rssBytes: number | null;
  fds: number | null;
  /** (RSS at the level − idle RSS) ÷ the streams open: the level, or those established of it. */
  rssPerStreamBytes: number | null;
  fdsAdded: number | null;
};

/** The k6 summary's counts and percentiles, level by level. */
export function stormLevelCounts(summary: StormSummary): StormLevelCounts[] {
  return summary.setup_data.plan.map(({ level }) => {
    const values = (name: string) => summary.metrics[`${name}{level:${level}}`]?.values ?? {};
    const count = (name: string) => values(name).count ?? 0;
    const percentiles = (name: string): Percentiles | null => {
      const v = values(name);
      return v.count ? { p50: v.med ?? 0, p90: v["p(90)"] ?? 0, p99: v["p(99)"] ?? 0 } : null;
    };
    return {
      level,
      established: count("storm_established"),
      failed: count("storm_failed"),
      dropped: count("storm_dropped"),
      silent: count("storm_silent"),
      establishMs: percentiles("storm_establish_ms"),
      firstEventMs: percentiles("storm_first_event_ms"),
    };
  });
}

/**
 * A process's footprint at each level against its idle one. Idle is the median of the readings
 * before the first level opened; a level's is the median RSS and the highest descriptor count of the
 * readings in its hold, less its first second (streams opened last are still settling). With the
 * levels' counts, RSS is shared among the streams established, not the streams asked for.
 */
export function levelFootprints(
  summary: Pick<StormSummary, "setup_data">,
  readings: readonly ProcessReading[],
  counts?: readonly Pick<StormLevelCounts, "level" | "established">[],
): { idle: { rssBytes: number; fds: number } | null; levels: LevelFootprint[] } {
  const { startMs, plan } = summary.setup_data;
  const at = (sec: number) => startMs + sec * 1000;
  const before = readings.filter((r) => plan.length > 0 && r.atMs < at(plan[0]!.startSec));
  const idle = before.length
    ? { rssBytes: median(before.map((r) => r.rssBytes)), fds: median(before.map((r) => r.fds)) }
    : null;
  const levels = plan.map(({ level, holdFromSec, holdToSec }) => {
    const held = readings.filter((r) => r.atMs >= at(holdFromSec + 1) && r.atMs < at(holdToSec));
    if (held.length === 0)
      return { level, rssBytes: null, fds: null, rssPerStreamBytes: null, fdsAdded: null };
    const rssBytes = median(held.map((r) => r.rssBytes));
    const streams = counts?.find((c) => c.level === level)?.established ?? level;
    const fds = Math.max(...held.map((r) => r.fds));
    return {
      level,
      rssBytes,
      fds,
      rssPerStreamBytes: idle && streams > 0 ? Math.round((rssBytes - idle.rssBytes) / streams) : null,
      fdsAdded: idle ? fds - idle.fds : null,
    };
  });
  return { idle, levels };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
