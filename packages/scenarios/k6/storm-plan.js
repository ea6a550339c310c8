// When each level of an open-connection storm opens, is held and ends: shared by
// connection-storm.js and its schema in @perflab/scenarios, so both say the same about a duration.

/** The ramp when none is given, and the seconds after each level for its streams to close. */
export const STORM_DEFAULT_RAMP_SEC = 2;
export const STORM_GAP_SEC = 2;

/** Seconds after the warm-up a storm of these levels needs at least: each ramps, is held 1 s, closes. */
export function stormMinDuration({ levels, rate, ramp, gap }) {
  return levels.reduce((total, n) => total + (rate ? Math.ceil(n / rate) : ramp) + 1 + gap, 0);
}

/**
 * The storm fills `duration` seconds after `warmup`: each level ramps (`ramp` s, or its streams at
 * `rate` a second), is held, and gets `gap` s to close; every level is held equally long.
 * Throws, naming the shortest duration that works, when that leaves a level less than a second held.
 */
export function stormPlan({ levels, rate, ramp, duration, warmup, gap, pool }) {
  const least = stormMinDuration({ levels, rate, ramp, gap });
  if (duration < least) {
    throw new Error(
      `DURATION must be at least ${least} s for these levels (each ramps, is held a second, closes)`,
    );
  }
  const ramps = levels.map((n) => (rate ? Math.ceil(n / rate) : ramp));
  const hold = 1 + Math.floor((duration - least) / levels.length);
  const plan = [];
  let at = warmup;
  levels.forEach((level, k) => {
    const vus = Math.min(pool, level);
    plan.push({ level, vus, startSec: at, holdFromSec: at + ramps[k], holdToSec: at + ramps[k] + hold });
    at += ramps[k] + hold + gap;
  });
  return plan;
}
