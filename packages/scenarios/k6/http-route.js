// Plain HTTP GET load on one of a reference server's REST routes (servers/CONTRACT.md section 7), no
// MCP: closed model (VUS requesting back to back) or, with RATE, open model (RATE requests started
// per second from a pool of MAX_VUS VUs, whatever the latency).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run http-route.js`); see docs/uploads-and-verdicts.md.
import { check } from "k6";
import exec from "k6/execution";
import http from "k6/http";
import { Counter } from "k6/metrics";
import { loadFromEnv, ms, phaseOf, summaryTo, systemTags, timeoutParams, valuesOf } from "./load.js";

const ROUTES = ["/rest/time", "/rest/users/{id}"];
// Users in the fixtures database (servers/CONTRACT.md section 5.3): ids 1..USERS all exist.
const USERS = 100000;

const TARGET = (__ENV.TARGET || "http://127.0.0.1:8080").replace(/\/+$/, "");
const ROUTE = route(__ENV.ROUTE);
const LOAD = loadFromEnv();
const TIMEOUT = timeoutParams();
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";

export const options = {
  scenarios: { http: LOAD.scenario },
  // Only the status is checked.
  discardResponseBodies: true,
  // k6's default system tags minus `method` and `url`: k6 would overwrite our `method` tag with the
  // HTTP verb (the same here, but the rule is the same as in mcp-tool-call.js), and `url` would make
  // every user id a time series of its own (`name` is set to the route instead).
  systemTags: systemTags("url"),
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
  // Always-true thresholds make k6 keep these submetrics for the end summary.
  thresholds: {
    "http_reqs{phase:measure}": ["count>=0"],
    "http_reqs{phase:measure,method:GET}": ["count>=0"],
    "http_req_duration{phase:measure,method:GET}": ["max>=0"],
    "http_req_failed{phase:measure}": ["rate>=0"],
    dropped_iterations: ["count>=0"],
  },
};

// Failed operations, as mcp-tool-call.js counts them (perflab's output reads this name).
const mcpOpErrors = new Counter("mcp_op_errors");

// Per-VU state (each VU has its own JS runtime): the position in the id sequence.
let nextUser = -1;

export default function () {
  const phase = phaseOf(LOAD.WARMUP);
  const requestTags = { phase, method: "GET", tool: ROUTE, name: ROUTE };
  const res = http.get(TARGET + path(), { tags: requestTags, responseType: "none", ...TIMEOUT });
  if (!check(res, { "status is 200": (r) => r.status === 200 })) {
    mcpOpErrors.add(1, { phase, method: "GET", tool: ROUTE });
  }
}

// The route with its parameter filled in. /rest/users/{id}: every VU walks the ids 1..USERS in
// order, wrapping around, each starting at its own offset (VU n of a pool of P at (n-1)·USERS/P), so
// the VUs spread over the table and every server is asked for the same ids.
function path() {
  if (ROUTE !== "/rest/users/{id}") {
    return ROUTE;
  }
  if (nextUser < 0) {
    const vu = (exec.vu.idInTest - 1) % LOAD.POOL;
    nextUser = Math.floor((vu * USERS) / LOAD.POOL);
  }
  const id = nextUser + 1;
  nextUser = (nextUser + 1) % USERS;
  return `/rest/users/${id}`;
}

function route(raw) {
  const value = raw === undefined || raw === "" ? ROUTES[0] : raw;
  if (!ROUTES.includes(value)) {
    throw new Error(
      `ROUTE must be one of ${ROUTES.map((r) => JSON.stringify(r)).join(", ")}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

export const handleSummary = summaryTo(SUMMARY_PATH, shortSummary);

function shortSummary(data) {
  const values = (name) => valuesOf(data, name);
  const reqs = values("http_reqs");
  const measured = values("http_reqs{phase:measure}");
  const dur = values("http_req_duration{phase:measure,method:GET}");
  const failed = values("http_req_failed");
  const errors = values("mcp_op_errors");
  const dropped = values("dropped_iterations");
  return [
    `http-route: GET ${ROUTE} ${LOAD.describe}`,
    `  http_reqs: ${reqs.count || 0} total, ${measured.count || 0} measured`,
    `  GET latency (measured): med=${ms(dur.med)} p(90)=${ms(dur["p(90)"])} p(99)=${ms(dur["p(99)"])} max=${ms(dur.max)}`,
    `  http_req_failed: ${((failed.rate || 0) * 100).toFixed(2)}%  failed (status not 200): ${errors.count || 0}${LOAD.RATE ? `  dropped requests: ${dropped.count || 0}` : ""}`,
  ].join("\n");
}
