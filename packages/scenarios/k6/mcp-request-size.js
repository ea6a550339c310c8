// MCP tools/call of echo with a large request over Streamable HTTP: each VU opens one session and
// calls echo in a loop with the arguments in the file ARGS_FILE names (a message of up to 1 MiB,
// past what an environment variable holds; the worker writes the file), or ARGS when run by hand.
// Closed model (VUS calling back to back) or, with RATE, open model (RATE calls started per second).
// Plain k6 JavaScript: runs with a stock k6 (`k6 run mcp-request-size.js`); see k6/README.md.
import { sleep } from "k6";
import { loadFromEnv, ms, phaseOf, summaryTo, systemTags, valuesOf } from "./load.js";
import { argumentsText, callTool, mcpUrl, newSession, openSession } from "./mcp.js";

const URL = mcpUrl(__ENV.TARGET, __ENV.MCP_PATH);
const LOAD = loadFromEnv();
// The JSON text is sent as read: serializing a 1 MiB message on every call would cost k6 more CPU
// than the server it measures.
const ARGS = argumentsText(
  __ENV.ARGS_FILE ? open(__ENV.ARGS_FILE) : __ENV.ARGS || '{"message":"hello"}',
  __ENV.ARGS_FILE ? "ARGS_FILE's content" : "ARGS",
);
// echo answers the message, padded to pad_to_bytes when that is longer (servers/CONTRACT.md 4.1):
// a call succeeds when the answer has that length and begins with the message, so the request
// reached the server intact.
const SENT = JSON.parse(ARGS);
const ANSWER_LENGTH = Math.max(SENT.message.length, SENT.pad_to_bytes || 0);
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";

export const options = {
  scenarios: { mcp: LOAD.scenario },
  discardResponseBodies: true,
  // k6's default system tags minus `method`, which k6 would overwrite with the HTTP verb.
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

// Each VU's session, opened on its first call and again when it failed or the server dropped it.
const session = newSession();

export default function () {
  const phase = phaseOf(LOAD.WARMUP);
  if (!session.initialized) {
    if (!openSession(URL, phase, session)) {
      // A server refusing sessions is not hammered faster than one answering them.
      sleep(0.1);
      return;
    }
  }
  callTool(URL, phase, session, "echo", ARGS, echoed);
}

function echoed(result) {
  const text = result.content?.[0]?.text;
  return typeof text === "string" && text.length === ANSWER_LENGTH && text.startsWith(SENT.message);
}

export const handleSummary = summaryTo(SUMMARY_PATH, shortSummary);

function shortSummary(data) {
  const values = (name) => valuesOf(data, name);
  const calls = values("http_reqs{phase:measure,method:tools/call}").count || 0;
  const requests = values("http_reqs").count || 0;
  const sent = values("data_sent").count || 0;
  const dur = values("http_req_duration{phase:measure,method:tools/call}");
  return [
    `mcp-request-size: echo with a ${SENT.message.length}-character message ${LOAD.describe}`,
    `  http_reqs: ${values("http_reqs").count || 0} total, ${calls} measured tools/call, ${requests ? Math.round(sent / requests) : 0} bytes sent per request`,
    `  tools/call latency (measured): med=${ms(dur.med)} p(90)=${ms(dur["p(90)"])} p(99)=${ms(dur["p(99)"])} max=${ms(dur.max)}`,
    `  http_req_failed: ${((values("http_req_failed").rate || 0) * 100).toFixed(2)}%  mcp_op_errors: ${values("mcp_op_errors").count || 0}${LOAD.RATE ? `  dropped calls: ${values("dropped_iterations").count || 0}` : ""}`,
  ].join("\n");
}
