// MCP tools/call load over Streamable HTTP: closed model (VUS calling back to back) or, with RATE,
// open model (RATE calls started per second from a pool of MAX_VUS VUs, whatever the latency).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run mcp-tool-call.js`); see docs/uploads-and-verdicts.md.
import { check, sleep } from "k6";
import http from "k6/http";
import { Counter } from "k6/metrics";
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
import { toolDefaults } from "./tool-defaults.js";

const TARGET = (__ENV.TARGET || "http://127.0.0.1:8080").replace(/\/+$/, "");
const MCP_PATH = __ENV.MCP_PATH || "/mcp";
const URL = TARGET + (MCP_PATH.startsWith("/") ? MCP_PATH : `/${MCP_PATH}`);
const LOAD = loadFromEnv();
const TOOL = __ENV.TOOL || "echo";
const ARGS = parseArgs(__ENV.ARGS);
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
const PROTOCOL_VERSION = "2025-06-18";

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

const mcpOpErrors = new Counter("mcp_op_errors");

// Per-VU state (each VU has its own JS runtime): its sessions, and the one the next call uses.
const sessions = [];
for (let i = 0; i < SESSIONS_PER_VU; i++) {
  sessions.push({ sessionId: null, protocolVersion: PROTOCOL_VERSION, initialized: false });
}
let turn = 0;
let nextId = 1;

export default function () {
  const phase = phaseOf(LOAD.WARMUP);
  // Holding several: each round of calls starts with every session open, one that failed or that
  // the server dropped opened again then (and only then, so a failure is counted once).
  const roundStart = turn === 0 && SESSIONS_PER_VU > 1;
  if (roundStart) {
    for (const s of sessions) {
      if (!s.initialized) openSession(phase, s);
    }
  }
  const session = sessions[turn];
  turn = (turn + 1) % SESSIONS_PER_VU;
  if (!session.initialized && (SESSIONS_PER_VU > 1 || !openSession(phase, session))) {
    if (SESSION === "per-call") {
      // A session the server opened before the handshake failed is ended too, not left to pile up.
      closeSession(phase, session);
    }
    think();
    return;
  }
  callTool(phase, session);
  if (SESSION === "per-call") {
    closeSession(phase, session);
  }
  think();
}

// The pause after each try, failed ones too: a server refusing sessions is not hammered faster.
function think() {
  if (THINK_MS > 0) {
    sleep(THINK_MS / 1000);
  }
}

function openSession(phase, session) {
  session.sessionId = null;
  session.protocolVersion = PROTOCOL_VERSION;
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
    session,
  );
  const reply = rpcReply(res, id);
  const ok = check(res, {
    "initialize succeeded": () => res.status === 200 && reply !== null && reply.result !== undefined,
  });
  if (!ok) {
    mcpOpErrors.add(1, { phase, method: "initialize" });
    return false;
  }
  session.sessionId = header(res, "mcp-session-id");
  if (typeof reply.result.protocolVersion === "string") {
    session.protocolVersion = reply.result.protocolVersion;
  }

  const note = post(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    tags(phase, "notifications/initialized", ""),
    "none",
    session,
  );
  if (!check(note, { "notifications/initialized accepted": (r) => r.status === 202 || r.status === 200 })) {
    mcpOpErrors.add(1, { phase, method: "notifications/initialized" });
    return false;
  }
  session.initialized = true;
  return true;
}

function callTool(phase, session) {
  const id = nextId++;
  const res = post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name: TOOL, arguments: ARGS } },
    tags(phase, "tools/call", TOOL),
    "text",
    session,
  );
  if (res.status === 404 && session.sessionId !== null) {
    // The server dropped the session: its next turn opens a new one.
    session.initialized = false;
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

const DELETE_ANSWERS = http.expectedStatuses({ min: 200, max: 299 }, 405);

// Ends the session with DELETE when the server gave one (stateless servers give none). A server
// may refuse client-initiated termination with 405; that is an answer, not an error.
function closeSession(phase, session) {
  const id = session.sessionId;
  session.initialized = false;
  session.sessionId = null;
  if (id === null) {
    return;
  }
  const res = http.del(URL, null, {
    headers: { "Mcp-Session-Id": id, "MCP-Protocol-Version": session.protocolVersion },
    tags: tags(phase, "DELETE", ""),
    responseType: "none",
    // So k6's http_req_failed agrees with the check below: a 405 is not a failed request either.
    responseCallback: DELETE_ANSWERS,
  });
  if (
    !check(res, { "session DELETE accepted": (r) => (r.status >= 200 && r.status < 300) || r.status === 405 })
  ) {
    mcpOpErrors.add(1, { phase, method: "DELETE" });
  }
}

function post(message, requestTags, responseType, session) {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (session.initialized || message.method !== "initialize") {
    headers["MCP-Protocol-Version"] = session.protocolVersion;
  }
  if (session.sessionId !== null) {
    headers["Mcp-Session-Id"] = session.sessionId;
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
