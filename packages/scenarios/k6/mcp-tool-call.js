// MCP tools/call load over Streamable HTTP: closed model (VUS calling back to back) or, with RATE,
// open model (RATE calls started per second from a pool of MAX_VUS VUs, whatever the latency).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run mcp-tool-call.js`); see README.md.
import { check } from "k6";
import exec from "k6/execution";
import http from "k6/http";
import { Counter } from "k6/metrics";

const TARGET = (__ENV.TARGET || "http://127.0.0.1:8080").replace(/\/+$/, "");
const MCP_PATH = __ENV.MCP_PATH || "/mcp";
const URL = TARGET + (MCP_PATH.startsWith("/") ? MCP_PATH : `/${MCP_PATH}`);
const VUS = positiveInt("VUS", 10);
const DURATION = positiveInt("DURATION", 10);
const WARMUP = nonNegativeInt("WARMUP", 0);
const ITERATIONS = __ENV.ITERATIONS ? positiveInt("ITERATIONS", 1) : 0;
const RATE = __ENV.RATE ? positiveInt("RATE", 1) : 0;
// Every VU of the pool is started up front (k6 cannot add VUs mid-test without a pause that would
// show as latency), and each opens its MCP session on its first call.
const MAX_VUS = RATE ? positiveInt("MAX_VUS", Math.min(5000, Math.max(10, Math.ceil(RATE / 5)))) : 0;
const TOOL = __ENV.TOOL || "echo";
const ARGS = parseArgs(__ENV.ARGS);
// "per-vu": one MCP session per VU, kept for the whole test; "per-call": a new session for every call
// (initialize, notifications/initialized, tools/call, then DELETE), the session storm of agents
// that connect per task.
const SESSION = sessionMode(__ENV.SESSION);
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";
const PROTOCOL_VERSION = "2025-06-18";
const WARMUP_MS = WARMUP * 1000;

const scenario = ITERATIONS
  ? // Fixed amount of work, for comparing the cost of the load generator itself.
    { executor: "shared-iterations", vus: VUS, iterations: ITERATIONS, maxDuration: "30m" }
  : RATE
    ? // Open model: a call starts every 1/RATE s; with no VU free it is dropped (dropped_iterations).
      {
        executor: "constant-arrival-rate",
        rate: RATE,
        timeUnit: "1s",
        duration: `${WARMUP + DURATION}s`,
        preAllocatedVUs: MAX_VUS,
        maxVUs: MAX_VUS,
      }
    : { executor: "constant-vus", vus: VUS, duration: `${WARMUP + DURATION}s` };

export const options = {
  scenarios: { mcp: scenario },
  // Bodies are read only where a response must be checked (responseType per request).
  discardResponseBodies: true,
  // k6's default system tags minus `method`: k6 would overwrite our `method`
  // tag (the JSON-RPC method) with the HTTP verb, which is always POST here.
  systemTags: [
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
  ],
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

const mcpOpErrors = new Counter("mcp_op_errors");

// Per-VU state: each VU has its own JS runtime, so these are per session.
let sessionId = null;
let protocolVersion = PROTOCOL_VERSION;
let initialized = false;
let nextId = 1;

export default function () {
  const phase = exec.instance.currentTestRunDuration < WARMUP_MS ? "warmup" : "measure";
  if (!initialized && !openSession(phase)) {
    return;
  }
  callTool(phase);
  if (SESSION === "per-call") {
    closeSession(phase);
  }
}

function openSession(phase) {
  sessionId = null;
  protocolVersion = PROTOCOL_VERSION;
  const id = nextId++;
  const res = post(
    {
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "perflab-k6", version: "1.0.0" },
      },
    },
    tags(phase, "initialize", ""),
    "text",
  );
  const reply = rpcReply(res, id);
  const ok = check(res, {
    "initialize succeeded": () => res.status === 200 && reply !== null && reply.result !== undefined,
  });
  if (!ok) {
    mcpOpErrors.add(1, { phase, method: "initialize" });
    return false;
  }
  sessionId = header(res, "mcp-session-id");
  if (typeof reply.result.protocolVersion === "string") {
    protocolVersion = reply.result.protocolVersion;
  }

  const note = post(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    tags(phase, "notifications/initialized", ""),
    "none",
  );
  if (!check(note, { "notifications/initialized accepted": (r) => r.status === 202 || r.status === 200 })) {
    mcpOpErrors.add(1, { phase, method: "notifications/initialized" });
    return false;
  }
  initialized = true;
  return true;
}

function callTool(phase) {
  const id = nextId++;
  const res = post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name: TOOL, arguments: ARGS } },
    tags(phase, "tools/call", TOOL),
    "text",
  );
  if (res.status === 404 && sessionId !== null) {
    // The server dropped the session: the next iteration opens a new one.
    initialized = false;
  }
  const reply = rpcReply(res, id);
  const ok = check(res, {
    "tools/call succeeded": () =>
      res.status === 200 &&
      reply !== null &&
      reply.error === undefined &&
      reply.result !== undefined &&
      reply.result.isError !== true,
  });
  if (!ok) {
    mcpOpErrors.add(1, { phase, method: "tools/call", tool: TOOL });
  }
}

// Ends the session with DELETE when the server gave one (stateless servers give none). A server
// may refuse client-initiated termination with 405; that is an answer, not an error.
function closeSession(phase) {
  const id = sessionId;
  initialized = false;
  sessionId = null;
  if (id === null) {
    return;
  }
  const res = http.del(URL, null, {
    headers: { "Mcp-Session-Id": id, "MCP-Protocol-Version": protocolVersion },
    tags: tags(phase, "DELETE", ""),
    responseType: "none",
  });
  if (
    !check(res, { "session DELETE accepted": (r) => (r.status >= 200 && r.status < 300) || r.status === 405 })
  ) {
    mcpOpErrors.add(1, { phase, method: "DELETE" });
  }
}

function post(message, requestTags, responseType) {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (initialized || message.method !== "initialize") {
    headers["MCP-Protocol-Version"] = protocolVersion;
  }
  if (sessionId !== null) {
    headers["Mcp-Session-Id"] = sessionId;
  }
  return http.post(URL, JSON.stringify(message), { headers, tags: requestTags, responseType });
}

function tags(phase, method, tool) {
  return { phase, method, tool };
}

// Returns the JSON-RPC response with the given id from a JSON or SSE body, or null.
function rpcReply(res, id) {
  if (typeof res.body !== "string" || res.body === "") {
    return null;
  }
  const type = (header(res, "content-type") || "").toLowerCase();
  if (type.startsWith("text/event-stream")) {
    return sseReply(res.body, id);
  }
  return matching(parseJSON(res.body), id);
}

// SSE events may be preceded by an empty priming event and may carry other
// messages (notifications); the reply is the `data:` payload with our id.
// Multi-line data fields of one event are joined as the SSE spec says.
function sseReply(body, id) {
  let data = [];
  for (const line of body.split(/\r?\n/)) {
    if (line.startsWith("data:")) {
      data.push(line.slice(line[5] === " " ? 6 : 5));
    } else if (line === "") {
      const reply = matching(parseJSON(data.join("\n")), id);
      if (reply !== null) {
        return reply;
      }
      data = [];
    }
  }
  return matching(parseJSON(data.join("\n")), id);
}

function matching(msg, id) {
  if (Array.isArray(msg)) {
    return msg.find((m) => m && m.id === id) || null;
  }
  return msg !== null && typeof msg === "object" && msg.id === id ? msg : null;
}

function parseJSON(text) {
  if (text === "") {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch (_) {
    return null;
  }
}

function header(res, name) {
  for (const key in res.headers) {
    if (key.toLowerCase() === name) {
      return res.headers[key];
    }
  }
  return null;
}

function positiveInt(name, fallback) {
  const v = __ENV[name] === undefined || __ENV[name] === "" ? fallback : Number(__ENV[name]);
  if (!Number.isInteger(v) || v < 1) {
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(__ENV[name])}`);
  }
  return v;
}

function nonNegativeInt(name, fallback) {
  const v = __ENV[name] === undefined || __ENV[name] === "" ? fallback : Number(__ENV[name]);
  if (!Number.isInteger(v) || v < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(__ENV[name])}`);
  }
  return v;
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

function parseArgs(raw) {
  if (raw === undefined || raw === "") {
    return { message: "hello" };
  }
  const v = JSON.parse(raw);
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`ARGS must be a JSON object, got ${raw}`);
  }
  return v;
}

// Returning a result replaces k6's own text summary (which only a remote jslib
// could rebuild offline), so a short summary is printed instead when a file is
// requested; without SUMMARY_PATH k6 prints its usual summary.
export function handleSummary(data) {
  if (!SUMMARY_PATH) {
    return undefined;
  }
  return {
    [SUMMARY_PATH]: JSON.stringify(data, null, 2),
    stdout: `${shortSummary(data)}\nsummary written to ${SUMMARY_PATH}\n`,
  };
}

function shortSummary(data) {
  const m = data.metrics;
  const values = (name) => (m[name] ? m[name].values : {});
  const reqs = values("http_reqs");
  const measured = values("http_reqs{phase:measure}");
  const calls = values("http_reqs{phase:measure,method:tools/call}");
  const dur = values("http_req_duration{phase:measure,method:tools/call}");
  const failed = values("http_req_failed");
  const errors = values("mcp_op_errors");
  const dropped = values("dropped_iterations");
  const ms = (v) => (v === undefined ? "-" : `${v.toFixed(2)}ms`);
  return [
    `mcp-tool-call: tool=${TOOL} session=${SESSION} ${RATE ? `rate=${RATE}/s max_vus=${MAX_VUS}` : `vus=${VUS}`} ${ITERATIONS ? `iterations=${ITERATIONS}` : `warmup=${WARMUP}s duration=${DURATION}s`}`,
    `  http_reqs: ${reqs.count || 0} total, ${measured.count || 0} measured, ${calls.count || 0} measured tools/call`,
    `  tools/call latency (measured): med=${ms(dur.med)} p(90)=${ms(dur["p(90)"])} p(99)=${ms(dur["p(99)"])} max=${ms(dur.max)}`,
    `  http_req_failed: ${((failed.rate || 0) * 100).toFixed(2)}%  mcp_op_errors: ${errors.count || 0}${RATE ? `  dropped calls: ${dropped.count || 0}` : ""}`,
  ].join("\n");
}
