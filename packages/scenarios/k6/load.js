// What every perflab scenario script shares: the load read from the environment (closed model VUS,
// or open model RATE from a pool of MAX_VUS, for WARMUP + DURATION seconds, or a fixed ITERATIONS),
// the phase tag of each request, the system tags, and the end-of-test summary file.
// Plain k6 JavaScript: imported by the scripts beside it, which still run with `k6 run <script>`.
import exec from "k6/execution";
import { Gauge } from "k6/metrics";

// When the test run began (Unix ms): k6 starts its outputs before it initialises the VUs, seconds
// before at thousands of VUs, so perflab's output says when the load, and the warm-up, really began.
const testStart = new Gauge("perflab_test_start");
let testStartSent = false;

export function positiveInt(name, fallback) {
  const v = __ENV[name] === undefined || __ENV[name] === "" ? fallback : Number(__ENV[name]);
  if (!Number.isInteger(v) || v < 1) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(__ENV[name])}`);
  }
  return v;
}

export function nonNegativeInt(name, fallback) {
  const v = __ENV[name] === undefined || __ENV[name] === "" ? fallback : Number(__ENV[name]);
  if (!Number.isInteger(v) || v < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(__ENV[name])}`);
  }
  return v;
}

/**
 * The load of one test from VUS, RATE, MAX_VUS, DURATION, WARMUP and ITERATIONS, and the k6
 * scenario that applies it: constant-vus (closed model), constant-arrival-rate (open model: an
 * operation starts every 1/RATE s; with no VU free it is dropped and counted in dropped_iterations),
 * or shared-iterations (a fixed amount of work, for comparing the cost of the load generator).
 */
export function loadFromEnv() {
  const VUS = positiveInt("VUS", 10);
  const DURATION = positiveInt("DURATION", 10);
  const WARMUP = nonNegativeInt("WARMUP", 0);
  const ITERATIONS = __ENV.ITERATIONS ? positiveInt("ITERATIONS", 1) : 0;
  const RATE = __ENV.RATE ? positiveInt("RATE", 1) : 0;
  // Every VU of the pool is started up front: k6 cannot add VUs mid-test without a pause that
  // would show as latency.
  const MAX_VUS = RATE ? positiveInt("MAX_VUS", Math.min(5000, Math.max(10, Math.ceil(RATE / 5)))) : 0;
  const scenario = ITERATIONS
    ? { executor: "shared-iterations", vus: VUS, iterations: ITERATIONS, maxDuration: "30m" }
    : RATE
      ? {
          executor: "constant-arrival-rate",
          rate: RATE,
          timeUnit: "1s",
          duration: `${WARMUP + DURATION}s`,
          preAllocatedVUs: MAX_VUS,
          maxVUs: MAX_VUS,
        }
      : { executor: "constant-vus", vus: VUS, duration: `${WARMUP + DURATION}s` };
  const describe = `${RATE ? `rate=${RATE}/s max_vus=${MAX_VUS}` : `vus=${VUS}`} ${
    ITERATIONS ? `iterations=${ITERATIONS}` : `warmup=${WARMUP}s duration=${DURATION}s`
  }`;
  return { VUS, DURATION, WARMUP, ITERATIONS, RATE, MAX_VUS, POOL: RATE ? MAX_VUS : VUS, scenario, describe };
}

/**
 * The client's timeout of every request (k6's `timeout` param) from TIMEOUT_MS, as request params
 * to spread into each call's; {} when unset, which keeps k6's own 60 s. A request that hits it ends
 * with error_code 1050, which perflab's output counts as a timeout rather than an error.
 */
export function timeoutParams() {
  return __ENV.TIMEOUT_MS ? { timeout: `${positiveInt("TIMEOUT_MS", 60000)}ms` } : {};
}

/**
 * "warmup" while the test has run less than the warm-up, else "measure": the summary's window.
 * Called first in each iteration, it also reports the test run's start, once per VU, before the
 * VU's first request.
 */
export function phaseOf(warmupSec) {
  const ran = exec.instance.currentTestRunDuration;
  if (!testStartSent) {
    testStartSent = true;
    testStart.add(Date.now() - ran);
  }
  return ran < warmupSec * 1000 ? "warmup" : "measure";
}

/**
 * k6's default system tags without `method` (k6 would overwrite the scripts' own `method` tag, the
 * operation, with the HTTP verb) and without any name in `without`.
 */
export function systemTags(...without) {
  return [
    "proto",
    "subproto",
    "status",
    "url",
    "name",
    "group",
    "check",
    "error",
    "error_code",
    "tls_version",
    "scenario",
    "service",
    "expected_response",
  ].filter((tag) => !without.includes(tag));
}

/**
 * A handleSummary that writes k6's whole summary to SUMMARY_PATH as JSON and prints `short(data)`
 * instead of k6's text summary (which only a remote jslib could rebuild offline); without
 * SUMMARY_PATH k6 prints its usual summary.
 */
export function summaryTo(summaryPath, short) {
  return (data) => {
    if (!summaryPath) {
      return undefined;
    }
    return {
      [summaryPath]: JSON.stringify(data, null, 2),
      stdout: `${short(data)}\nsummary written to ${summaryPath}\n`,
    };
  };
}

/** A metric's summary values, or {} when k6 recorded none. */
export function valuesOf(data, name) {
  return data.metrics[name] ? data.metrics[name].values : {};
}

export const ms = (v) => (v === undefined ? "-" : `${v.toFixed(2)}ms`);
