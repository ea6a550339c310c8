/** Types of storm-plan.js, the schedule shared by connection-storm.js and @perflab/scenarios. */
export type StormPlanLevel = {
  level: number;
  vus: number;
  startSec: number;
  holdFromSec: number;
  holdToSec: number;
};
export declare function stormPlan(input: {
  levels: readonly number[];
  rate: number;
  ramp: number;
  duration: number;
  warmup: number;
  gap: number;
  pool: number;
}): StormPlanLevel[];
export declare function stormMinDuration(input: {
  levels: readonly number[];
  rate: number;
  ramp: number;
  gap: number;
}): number;
export declare const STORM_DEFAULT_RAMP_SEC: number;
export declare const STORM_GAP_SEC: number;
