import { runtimeOfPoint } from "@perflab/contracts";
import type { ResourceSample } from "./cell-aggregator.ts";

/**
 * GC over time from the servers' /debug/runtime (servers/CONTRACT.md section 7). The sampler keeps
 * each second's document with `gc_pauses_recent` replaced by `gc_pause_max_ms`, the longest single
 * pause since the previous reading (0 when none; null when the runtime lists no pauses): a second's
 * points stay small, and the list's numbers make the maximum right across missed readings.
 */
type Pause = [n: number, ms: number];

const isPauseList = (value: unknown): value is Pause[] =>
  Array.isArray(value) &&
  value.every((p) => Array.isArray(p) && typeof p[0] === "number" && typeof p[1] === "number");

/** A reducer for one server's successive /debug/runtime documents (one per sampler, in order). */
export function longestPauseSincePrevious(): (runtime: unknown) => unknown {
  let lastSeen: number | null = null;
  return (runtime) => {
    if (!runtime || typeof runtime !== "object" || !("gc_pauses_recent" in runtime)) return runtime;
    const { gc_pauses_recent: listed, ...rest } = runtime as Record<string, unknown>;
    if (!isPauseList(listed)) return { ...rest, gc_pause_max_ms: null };
    // The first reading has no previous one: it sets where the next starts, and reports none.
    const fresh = lastSeen === null ? [] : listed.filter(([n]) => n > (lastSeen as number));
    lastSeen = listed.reduce((last, [n]) => Math.max(last, n), lastSeen ?? 0);
    return { ...rest, gc_pause_max_ms: fresh.reduce((longest, [, ms]) => Math.max(longest, ms), 0) };
  };
}

/** The measured window's GC: collections per second, mean pause per collection, longest pause. */
export type GcSummary = {
  gcCollectionsPerSec: number | null;
  gcPauseAvgMs: number | null;
  gcPauseMaxMs: number | null;
};

/**
 * GC over the measured seconds, from the counters' growth between the first and last sample that
 * report them (monotone, so a missed second costs nothing) and the longest per-second pause.
 */
export function gcSummary(samples: readonly ResourceSample[]): GcSummary {
  const seconds = samples.map((s) => ({ t: s.t, ...runtimeOfPoint(s.runtime) }));
  const counted = seconds.filter((s) => s.gcCount !== null);
  const first = counted[0];
  const last = counted.at(-1);
  const span = first && last ? last.t - first.t : 0;
  const collections = first && last ? (last.gcCount as number) - (first.gcCount as number) : null;
  const pauseMs =
    first && last && first.gcPauseTotalMs !== null && last.gcPauseTotalMs !== null
      ? last.gcPauseTotalMs - first.gcPauseTotalMs
      : null;
  const maxima = seconds.map((s) => s.gcPauseMaxMs).filter((v): v is number => v !== null);
  return {
    gcCollectionsPerSec: collections !== null && span > 0 ? collections / span : null,
    gcPauseAvgMs: collections !== null && collections > 0 && pauseMs !== null ? pauseMs / collections : null,
    gcPauseMaxMs: maxima.length ? maxima.reduce((a, b) => Math.max(a, b), 0) : null,
  };
}
