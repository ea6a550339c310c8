/**
 * Round axis ticks for the charts: 0, 1000, 2000, 3000, 4000 rather than recharts' 0, 950, 1900,
 * 2850, 3800 (its ticks split the data's range evenly, round or not).
 */

/** Float noise off a tick: 0.30000000000000004 → 0.3. */
const clean = (value: number) => Number(value.toPrecision(12));

/** The smallest of 1, 2, 2.5, 5 × a power of ten at least `raw`; `integer` skips the fractions. */
export function niceStep(raw: number, integer = false): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const residual = raw / magnitude;
  const step = clean(([1, 2, 2.5, 5, 10].find((m) => m >= residual - 1e-9) ?? 10) * magnitude);
  if (!integer) return step;
  // Never below 1; of the steps from 1 up only 2.5 is no whole number: 5 then.
  if (step < 1) return 1;
  return Number.isInteger(step) ? step : 5;
}

/**
 * A value axis from 0: its top, the first round step at or above `max`, and the ticks up to it,
 * about `count` of them (one more for 0). An axis without data (max 0 or none) spans 0–1.
 */
export function niceScale(max: number, count = 4, integer = false): { top: number; ticks: number[] } {
  const high = Number.isFinite(max) && max > 0 ? max : integer ? count : 1;
  const step = niceStep(high / count, integer);
  const top = clean(Math.ceil(clean(high / step)) * step);
  const ticks: number[] = [];
  for (let i = 0; clean(i * step) <= top; i++) ticks.push(clean(i * step));
  return { top, ticks };
}

/** Steps a time axis in seconds falls on: whole seconds, then the clock's own (15 s, 30 s, 1 min…). */
const SECOND_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

/**
 * Ticks of a time axis from `start` (0, or a second before the load's first) to `end` seconds, at
 * most about `count` of them, each a round number of seconds.
 */
export function secondTicks(end: number, count = 6, start = 0): number[] {
  const span = Math.max(1, end - start);
  const step = SECOND_STEPS.find((s) => span / s <= count) ?? Math.ceil(span / count / 3600) * 3600;
  const ticks: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= start + span; t += step) ticks.push(t === 0 ? 0 : t);
  return ticks;
}

/** The largest number among `rows`' values under `keys` (0 when none is). */
export function maxOf(rows: readonly Record<string, unknown>[], keys: readonly string[]): number {
  let max = 0;
  for (const row of rows)
    for (const key of keys) {
      const value = row[key];
      if (typeof value === "number" && Number.isFinite(value) && value > max) max = value;
    }
  return max;
}
