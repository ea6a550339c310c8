// MCP tools/call load over Streamable HTTP: closed model (VUS calling back to back) or, with RATE,
// open model (RATE calls started per second from a pool of MAX_VUS VUs, whatever the latency).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run mcp-tool-call.js`); see docs/uploads-and-verdicts.md.
import { sleep } from "k6";
import {
  loadFromEnv,
  ms,
  nonNegativeInt,
  phaseOf,
  positiveInt,
  summaryTo,
  systemTags,
  valuesOf,
} from "./load.js";
import { callTool, closeSession, mcpUrl, newSession, openSession } from "./mcp.js";
import { toolDefaults } from "./tool-defaults.js";

const URL = mcpUrl(__ENV.TARGET, __ENV.MCP_PATH);
const LOAD = loadFromEnv();
const TOOL = __ENV.TOOL || "echo";
const ARGS = parseArgs(__ENV.ARGS);
// Serialized once: every call sends the same arguments.
const ARGS_TEXT = JSON.stringify(ARGS);
// "per-vu": one MCP session per VU, kept for the whole test; "per-call": a new session for every call
// (initialize, notifications/initialized, tools/call, then DELETE), the session storm of agents
// that connect per task.
const SESSION = sessionMode(__ENV.SESSION);
// Sessions each VU opens at its start and keeps, calling them in turn (per-vu only): VUS ×
// SESSIONS_PER_VU sessions held open, the many mostly idle agents of one server.
const SESSIONS_PER_VU = positiveInt("SESSIONS_PER_VU", 1);
// A VU's pause after each call, in ms: agents that think between calls.
const THINK_MS = nonNegativeInt("THINK_MS", 0);
if (SESSION === "per-call" && SESSIONS_PER_VU > 1) {
  throw new Error("SESSIONS_PER_VU holds sessions open, which SESSION=per-call does not");
}
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";

export const options = {
  scenarios: { mcp: LOAD.scenario },
  // Bodies are read only where a response must be checked (responseType per request).
  discardResponseBodies: true,
  // k6's default system tags minus `method`: k6 would overwrite our `method`
  // tag (the JSON-RPC method) with the HTTP verb, which is always POST here.
  systemTags: systemTags(),
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
  // Always-true thresholds make k6 keep these submetrics for the end summary.
  thresholds: {
    "http_reqs{phase:measure}": ["count>=0"],
    "http_reqs{phase:measure,method:tools/call}": ["count>=0"],
    "http_req_duration{phase:measure,method:tools/call}": ["max>=0"],
    "http_req_failed{phase:measure}": ["rate>=0"],
    dropped_iterations: ["count>=0"],
  },
};

// Per-VU state (each VU has its own JS runtime): its sessions, and the one the next call uses.
const sessions = [];
for (let i = 0; i < SESSIONS_PER_VU; i++) {
  sessions.push(newSession());
}
let turn = 0;

export default function () {
  const phase = phaseOf(LOAD.WARMUP);
  // Holding several: each round of calls starts with every session open, one that failed or that
  // the server dropped opened again then (and only then, so a failure is counted once).
  const roundStart = turn === 0 && SESSIONS_PER_VU > 1;
  if (roundStart) {
    for (const s of sessions) {
      if (!s.initialized) openSession(URL, phase, s);
    }
  }
  const session = sessions[turn];
  turn = (turn + 1) % SESSIONS_PER_VU;
  if (!session.initialized && (SESSIONS_PER_VU > 1 || !openSession(URL, phase, session))) {
    if (SESSION === "per-call") {
      // A session the server opened before the handshake failed is ended too, not left to pile up.
      closeSession(URL, phase, session);
    }
    think();
    return;
  }
  callTool(URL, phase, session, TOOL, ARGS_TEXT);
  if (SESSION === "per-call") {
    closeSession(URL, phase, session);
  }
  think();
}

// The pause after each try, failed ones too: a server refusing sessions is not hammered faster.
function think() {
  if (THINK_MS > 0) {
    sleep(THINK_MS / 1000);
  }
}

function sessionMode(raw) {
  if (raw === undefined || raw === "" || raw === "per-vu") {
    return "per-vu";
  }
  if (raw === "per-call") {
    return "per-call";
  }
  throw new Error(`SESSION must be "per-vu" or "per-call", got ${JSON.stringify(raw)}`);
}

// Without ARGS, the tool's defaults (tool-defaults.js, as the API and the form use), else none.
function parseArgs(raw) {
  if (raw === undefined || raw === "") {
    return Object.hasOwn(toolDefaults, TOOL) ? toolDefaults[TOOL] : {};
  }
  const v = JSON.parse(raw);
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`ARGS must be a JSON object, got ${raw}`);
  }
  return v;
}

export const handleSummary = summaryTo(SUMMARY_PATH, shortSummary);

function shortSummary(data) {
  const values = (name) => valuesOf(data, name);
  const reqs = values("http_reqs");
  const measured = values("http_reqs{phase:measure}");
  const calls = values("http_reqs{phase:measure,method:tools/call}");
  const dur = values("http_req_duration{phase:measure,method:tools/call}");
  const failed = values("http_req_failed");
  const errors = values("mcp_op_errors");
  const dropped = values("dropped_iterations");
  return [
    `mcp-tool-call: tool=${TOOL} session=${SESSION}${SESSIONS_PER_VU > 1 ? ` sessions/VU=${SESSIONS_PER_VU}` : ""}${THINK_MS ? ` think=${THINK_MS}ms` : ""} ${LOAD.describe}`,
    `  http_reqs: ${reqs.count || 0} total, ${measured.count || 0} measured, ${calls.count || 0} measured tools/call`,
    `  tools/call latency (measured): med=${ms(dur.med)} p(90)=${ms(dur["p(90)"])} p(99)=${ms(dur["p(99)"])} max=${ms(dur.max)}`,
    `  http_req_failed: ${((failed.rate || 0) * 100).toFixed(2)}%  mcp_op_errors: ${errors.count || 0}${LOAD.RATE ? `  dropped calls: ${dropped.count || 0}` : ""}`,
  ].join("\n");
}
