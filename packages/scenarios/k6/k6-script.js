// A workspace's own k6 script run as a perflab scenario (docs/custom-scripts.md). The worker writes
// the stored script beside this file as user-script.js; this wrapper gives it the lab's load (VUS or
// RATE + MAX_VUS, WARMUP, DURATION), the phase and operation tags, loopback-only networking and the
// summary the worker checks, so its cells are measured as the built-in scenarios' are.
import exec from "k6/execution";
import { loadFromEnv, ms, phaseOf, summaryTo, systemTags, valuesOf } from "./load.js";
import * as user from "./user-script.js";

const TARGET = (__ENV.TARGET || "http://127.0.0.1:8080").replace(/\/+$/, "");
const MCP_PATH = __ENV.MCP_PATH || "/mcp";
const LOAD = loadFromEnv();
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";
// The `method` tag of a request the script leaves untagged: it counts as an operation.
const OPERATION = "tools/call";

if (typeof user.default !== "function") {
  throw new Error("the script must export a default function: one iteration of its load");
}

// Every address but 127.0.0.0/8 (all of IPv6 too): load goes to the lab's loopback servers only.
export const NOT_LOOPBACK = [
  "0.0.0.0/2",
  "64.0.0.0/3",
  "96.0.0.0/4",
  "112.0.0.0/5",
  "120.0.0.0/6",
  "124.0.0.0/7",
  "126.0.0.0/8",
  "128.0.0.0/1",
  "::/0",
];

// The lab's load replaces the script's own; its other options (thresholds, headers, …) stay.
const {
  vus: _vus,
  duration: _duration,
  stages: _stages,
  iterations: _iterations,
  scenarios: _scenarios,
  ...own
} = user.options || {};

export const options = {
  ...own,
  scenarios: { script: LOAD.scenario },
  // k6's `method` system tag would overwrite the operation tag with the HTTP verb.
  systemTags: systemTags(),
  blacklistIPs: NOT_LOOPBACK,
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
  // Always-true thresholds make k6 keep these submetrics for the end summary.
  thresholds: {
    ...(own.thresholds || {}),
    "http_reqs{phase:measure}": ["count>=0"],
    [`http_reqs{phase:measure,method:${OPERATION}}`]: ["count>=0"],
    [`http_req_duration{phase:measure,method:${OPERATION}}`]: ["max>=0"],
    "http_req_failed{phase:measure}": ["rate>=0"],
    dropped_iterations: ["count>=0"],
  },
};

export function setup() {
  return typeof user.setup === "function" ? user.setup() : undefined;
}

export function teardown(data) {
  if (typeof user.teardown === "function") user.teardown(data);
}

// One iteration of the script. Tags set on the VU reach every request it makes; a request's own
// tags win, so the script's `method: "initialize"` is overhead, not an operation.
export default function (data) {
  const tags = exec.vu.metrics.tags;
  tags.phase = phaseOf(LOAD.WARMUP);
  tags.method = OPERATION;
  try {
    user.default(data);
  } catch (error) {
    // k6 would log an iteration's exception and go on: a broken script must fail its cell instead.
    exec.test.abort(`the script failed: ${error?.stack ?? error}`);
  }
}

export const handleSummary = summaryTo(SUMMARY_PATH, shortSummary);

function shortSummary(data) {
  const values = (name) => valuesOf(data, name);
  const measured = values("http_reqs{phase:measure}");
  const ops = values(`http_reqs{phase:measure,method:${OPERATION}}`);
  const dur = values(`http_req_duration{phase:measure,method:${OPERATION}}`);
  return [
    `k6-script: ${TARGET} (MCP ${MCP_PATH}) ${LOAD.describe}`,
    `  http_reqs: ${values("http_reqs").count || 0} total, ${measured.count || 0} measured, ${ops.count || 0} operations`,
    `  operation latency (measured): med=${ms(dur.med)} p(90)=${ms(dur["p(90)"])} p(99)=${ms(dur["p(99)"])} max=${ms(dur.max)}`,
  ].join("\n");
}
