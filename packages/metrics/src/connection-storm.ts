/**
 * An open-connection storm's figures per level (k6/connection-storm.js): the streams the k6 summary
 * counted, and what a process (the server, or the load generator itself) held while they were open.
 * A storm cell's summary (the worker) and bench/connection-storm.ts both take them from here.
 */
import type { TStormFigures, TStormLevel, TStormPercentiles } from "@perflab/contracts";

/** When one level opened, was held and ended, in seconds from the test's start (the script's plan). */
export type StormPlanLevel = { level: number; holdFromSec: number; holdToSec: number; startSec: number };

/** What the script's handleSummary writes (SUMMARY_PATH) that the figures need. */
export type StormSummary = {
  setup_data: { startMs: number; plan: StormPlanLevel[] };
  metrics: Record<string, { values: Record<string, number> } | undefined>;
};

/**
 * One reading of a process while the storm ran: when (Unix ms), its RSS and its open descriptors
 * (null where they cannot be read: a container on a remote engine).
 */
export type ProcessReading = { atMs: number; rssBytes: number; fds: number | null };

export type Percentiles = TStormPercentiles;

/** A level's streams as k6 counted them (ZStormLevel in @perflab/contracts). */
export type StormLevelCounts = Pick<
  TStormLevel,
  "level" | "established" | "failed" | "dropped" | "silent" | "establishMs" | "firstEventMs"
>;

/** A process at one level: RSS and descriptors while the level was held, and what each stream added. */
export type LevelFootprint = Pick<
  TStormLevel,
  "level" | "rssBytes" | "fds" | "rssPerStreamBytes" | "fdsAdded"
>;

/**
 * A k6 end-of-test summary as a storm's, when it is one: the plan connection-storm.js returns from
 * setup() (k6 hands it to handleSummary as setup_data). Null for any other script's summary.
 */
export function asStormSummary(summary: unknown): StormSummary | null {
  const data = summary as { setup_data?: { startMs?: unknown; plan?: unknown }; metrics?: unknown } | null;
  const setup = data?.setup_data;
  if (typeof setup?.startMs !== "number" || !Array.isArray(setup.plan) || setup.plan.length === 0)
    return null;
  const levels = setup.plan as Partial<StormPlanLevel>[];
  const planned = levels.every((p) =>
    [p.level, p.startSec, p.holdFromSec, p.holdToSec].every((v) => typeof v === "number"),
  );
  return planned && typeof data?.metrics === "object" && data.metrics !== null
    ? (summary as StormSummary)
    : null;
}

/**
 * A storm's figures per level from k6's summary and the server's readings: the counts and
 * percentiles of stormLevelCounts beside the footprint of levelFootprints, RSS shared among the
 * streams established. Null when the summary is not a storm's.
 */
export function stormFigures(summary: unknown, readings: readonly ProcessReading[]): TStormFigures | null {
  const storm = asStormSummary(summary);
  if (!storm) return null;
  const counts = stormLevelCounts(storm);
  const { idle, levels } = levelFootprints(storm, readings, counts);
  return { idle, levels: counts.map((c, i) => ({ ...c, ...levels[i]! })) };
}

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
): { idle: TStormFigures["idle"]; levels: LevelFootprint[] } {
  const { startMs, plan } = summary.setup_data;
  const at = (sec: number) => startMs + sec * 1000;
  const before = readings.filter((r) => plan.length > 0 && r.atMs < at(plan[0]!.startSec));
  const beforeFds = countsOf(before);
  const idle = before.length
    ? {
        rssBytes: median(before.map((r) => r.rssBytes)),
        fds: beforeFds.length ? Math.round(median(beforeFds)) : null,
      }
    : null;
  const idleFds = idle?.fds ?? null;
  const levels = plan.map(({ level, holdFromSec, holdToSec }) => {
    const held = readings.filter((r) => r.atMs >= at(holdFromSec + 1) && r.atMs < at(holdToSec));
    if (held.length === 0)
      return { level, rssBytes: null, fds: null, rssPerStreamBytes: null, fdsAdded: null };
    const rssBytes = median(held.map((r) => r.rssBytes));
    const streams = counts?.find((c) => c.level === level)?.established ?? level;
    const heldFds = countsOf(held);
    const fds = heldFds.length ? Math.max(...heldFds) : null;
    return {
      level,
      rssBytes,
      fds,
      rssPerStreamBytes: idle && streams > 0 ? Math.round((rssBytes - idle.rssBytes) / streams) : null,
      fdsAdded: fds !== null && idleFds !== null ? fds - idleFds : null,
    };
  });
  return { idle, levels };
}

/** The descriptor counts of the readings that have one. */
const countsOf = (readings: readonly ProcessReading[]) =>
  readings.flatMap((r) => (r.fds === null ? [] : [r.fds]));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
