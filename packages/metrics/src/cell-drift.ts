import type { TDrift } from "@perflab/contracts";
import type { ResourceSample } from "./cell-aggregator.ts";
import { type Histogram, latencyStats } from "./histogram.ts";

/** One measure over the first and the last tenth of the measured window. */
export type DriftMeasure = TDrift["opsRps"];

/**
 * Drift over a long cell (a soak): the last tenth of the measured window against the first, for
 * throughput, p99 (each tenth's merged histogram, never averaged seconds) and server RSS, with the
 * RSS trend over the whole window (least-squares slope) — the memory growth and latency creep one
 * number per cell hides.
 */
export type Drift = TDrift;

/** The shortest measured window drift is computed for: a tenth of it is two seconds. */
export const DRIFT_MIN_SECONDS = 20;

const changePct = (first: number | null, last: number | null) =>
  first === null || last === null || first === 0 ? null : ((last - first) / Math.abs(first)) * 100;

/** Least-squares slope of y over x; null with fewer than two distinct x. */
function slope(points: { x: number; y: number }[]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

/** One tenth of the measured window: the operations that ended in it and its merged histograms. */
export type DriftTenth = { ops: number; hist: Histogram; opHist: Histogram };

/**
 * Drift from the tenths of a window of `durationSec` seconds, its resource samples and its first
 * second; `latencyHist` picks the histogram latency is read from.
 */
export function computeDrift(input: {
  durationSec: number;
  tenths: DriftTenth[];
  resources: ResourceSample[];
  windowFirstT: number;
  latencyHist: (of: { hist: Histogram; opHist: Histogram }) => Histogram;
}): Drift {
  const { durationSec, tenths, windowFirstT } = input;
  const tenthSeconds = (durationSec - 1) / 10;
  const first = tenths[0]!;
  const last = tenths[9] ?? null;
  const p99 = (tenth: { hist: Histogram; opHist: Histogram } | null) => {
    const hist = tenth && input.latencyHist(tenth);
    return hist && hist.totalCount > 0 ? latencyStats(hist).p99 : null;
  };
  // Over every whole second a tenth spans, those without a request included: a stall lowers it.
  const span = (index: number) => {
    let n = 0;
    for (let i = 1; i <= durationSec - 1; i++)
      if (Math.min(9, Math.floor(((i - 1) * 10) / (durationSec - 1))) === index) n++;
    return n;
  };
  // A tenth no call ended in is a stall: rate 0, not unknown (its p99 stays unknown).
  const rate = (tenth: { ops: number } | null, index: number) =>
    span(index) > 0 ? (tenth?.ops ?? 0) / span(index) : null;
  // Server RSS by seconds since the window began: the tenths' means and the trend over all of it.
  const rss = input.resources
    .filter((r) => r.rssBytes !== null && Number.isFinite(r.rssBytes))
    .map((r) => ({ x: r.t - windowFirstT, y: r.rssBytes! }));
  const meanWhere = (keep: (x: number) => boolean) => {
    const ys = rss.filter((p) => keep(p.x)).map((p) => p.y);
    return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : null;
  };
  const rssFirst = meanWhere((x) => x >= 1 && x < 1 + tenthSeconds);
  const rssLast = meanWhere((x) => x >= durationSec - tenthSeconds && x <= durationSec - 1);
  const perSecond = slope(rss);
  return {
    tenthSeconds,
    opsRps: {
      first: rate(first, 0),
      last: rate(last, 9),
      changePct: changePct(rate(first, 0), rate(last, 9)),
    },
    p99Ms: { first: p99(first), last: p99(last), changePct: changePct(p99(first), p99(last)) },
    rssBytes: {
      first: rssFirst,
      last: rssLast,
      changePct: changePct(rssFirst, rssLast),
      slopePerHour: perSecond === null ? null : perSecond * 3600,
    },
  };
}
