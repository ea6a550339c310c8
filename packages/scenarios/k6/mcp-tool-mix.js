// A mix of MCP tools in session lifecycles over Streamable HTTP, as agents use a server: each
// iteration opens a session (initialize → notifications/initialized), lists the tools, makes
// CALLS_PER_SESSION calls drawn from the mix by weight, then ends the session with DELETE.
// Closed model (VUS sessions back to back) or, with RATE, open model (RATE sessions started per
// second from a pool of MAX_VUS VUs).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run mcp-tool-mix.js`); see k6/README.md.
import { loadFromEnv, ms, phaseOf, positiveInt, summaryTo, systemTags, valuesOf } from "./load.js";
import { argumentsText, callTool, closeSession, listTools, mcpUrl, newSession, openSession } from "./mcp.js";
import { toolDefaults } from "./tool-defaults.js";

const URL = mcpUrl(__ENV.TARGET, __ENV.MCP_PATH);
const LOAD = loadFromEnv();
// The mix: a JSON array of { tool, weight, arguments }, from the file MIX_FILE names (the worker
// writes it: arguments may reach 1 MiB, past what an environment variable holds), else from MIX.
const MIX = parseMix(__ENV.MIX_FILE ? open(__ENV.MIX_FILE) : __ENV.MIX);
const CALLS_PER_SESSION = positiveInt("CALLS_PER_SESSION", 10);
const SEQUENCE = weightedSequence(MIX);
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";

export const options = {
  scenarios: { mix: LOAD.scenario },
  // Bodies are read only where a response must be checked (responseType per request).
  discardResponseBodies: true,
  // k6's default system tags minus `method`, which k6 would overwrite with the HTTP verb.
  systemTags: systemTags(),
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"],
  // Always-true thresholds make k6 keep these submetrics (per method and per tool) for the summary.
  thresholds: {
    "http_req_failed{phase:measure}": ["rate>=0"],
    dropped_iterations: ["count>=0"],
    ...always("count>=0", [
      "http_reqs{phase:measure}",
      ...["initialize", "tools/list", "tools/call", "DELETE"].map(
        (m) => `http_reqs{phase:measure,method:${m}}`,
      ),
      ...MIX.map((e) => `http_reqs{phase:measure,method:tools/call,tool:${e.tool}}`),
    ]),
    ...always("max>=0", [
      "http_req_duration{phase:measure,method:tools/call}",
      ...MIX.map((e) => `http_req_duration{phase:measure,method:tools/call,tool:${e.tool}}`),
    ]),
  },
};

// Each VU walks the weighted sequence from its own place (__VU is 0 only while k6 reads the
// options), across its sessions, so every VU calls the tools in the mix's proportions and VUs do
// not call the same tool in step.
let turn = Math.max(__VU - 1, 0) % SEQUENCE.length;

export default function () {
  const phase = phaseOf(LOAD.WARMUP);
  const session = newSession();
  if (openSession(URL, phase, session) && listTools(URL, phase, session)) {
    for (let i = 0; i < CALLS_PER_SESSION && session.initialized; i++) {
      const entry = SEQUENCE[turn];
      turn = (turn + 1) % SEQUENCE.length;
      callTool(URL, phase, session, entry.tool, entry.args);
    }
  }
  // Ended whatever happened, so a session the server opened before a failure does not pile up.
  closeSession(URL, phase, session);
}

function always(condition, names) {
  return Object.fromEntries(names.map((name) => [name, [condition]]));
}

/**
 * The mix as a sequence one weight-sum long in which each tool appears as often as its weight,
 * spread out (smooth weighted round-robin): echo 3, fibonacci 1 → echo, echo, fibonacci, echo.
 */
function weightedSequence(mix) {
  const total = mix.reduce((sum, e) => sum + e.weight, 0);
  const current = mix.map(() => 0);
  const sequence = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < mix.length; i++) {
      current[i] += mix[i].weight;
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    sequence.push(mix[best]);
  }
  return sequence;
}

// Without MIX or MIX_FILE: echo alone. Each entry's arguments default to its tool's (tool-defaults.js).
function parseMix(raw) {
  const mix = raw === undefined || raw === "" ? [{ tool: "echo" }] : JSON.parse(raw);
  if (!Array.isArray(mix) || mix.length === 0) {
    throw new Error("the mix must be a non-empty JSON array of { tool, weight, arguments }");
  }
  return mix.map((e, i) => {
    const weight = e.weight === undefined ? 1 : e.weight;
    if (typeof e.tool !== "string" || e.tool === "" || !Number.isInteger(weight) || weight < 1) {
      throw new Error(`mix entry ${i} needs a tool and a positive whole weight`);
    }
    const args = e.arguments === undefined ? toolDefaults[e.tool] || {} : e.arguments;
    return { tool: e.tool, weight, args: argumentsText(JSON.stringify(args), `mix entry ${i}'s arguments`) };
  });
}

export const handleSummary = summaryTo(SUMMARY_PATH, shortSummary);

function shortSummary(data) {
  const values = (name) => valuesOf(data, name);
  const count = (name) => values(name).count || 0;
  const calls = (tool) => count(`http_reqs{phase:measure,method:tools/call,tool:${tool}}`);
  const p99 = (tool) =>
    ms(values(`http_req_duration{phase:measure,method:tools/call,tool:${tool}}`)["p(99)"]);
  return [
    `mcp-tool-mix: ${MIX.map((e) => `${e.tool}:${e.weight}`).join(" ")} calls/session=${CALLS_PER_SESSION} ${LOAD.describe}`,
    `  http_reqs: ${count("http_reqs")} total, ${count("http_reqs{phase:measure}")} measured; sessions: ${count("http_reqs{phase:measure,method:initialize}")} initialize, ${count("http_reqs{phase:measure,method:DELETE}")} DELETE`,
    ...MIX.map((e) => `  ${e.tool}: ${calls(e.tool)} measured calls, p(99)=${p99(e.tool)}`),
    `  http_req_failed: ${((values("http_req_failed").rate || 0) * 100).toFixed(2)}%  mcp_op_errors: ${count("mcp_op_errors")}${LOAD.RATE ? `  dropped sessions: ${count("dropped_iterations")}` : ""}`,
  ].join("\n");
}
