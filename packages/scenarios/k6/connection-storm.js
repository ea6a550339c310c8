// Open-connection storm: at each of LEVELS, that many clients each open an MCP session and hold an
// SSE stream open, then close it; the levels run one after the other and share DURATION s (each
// ramps, is held, and closes). The stream is the Streamable HTTP standalone GET stream
// (STREAM=streamable, GET on the MCP path with the session id) or a legacy HTTP+SSE server's /sse
// stream (STREAM=legacy-sse). Needs perflab's k6 (scripts/build-k6.sh), which compiles in
// k6/x/perflab-sse: a stream is a promise, not a VU.
import exec from "k6/execution";
import http from "k6/http";
import { Counter, Trend } from "k6/metrics";
import { hold } from "k6/x/perflab-sse";
import { ms, nonNegativeInt, phaseOf, positiveInt, summaryTo, systemTags, valuesOf } from "./load.js";
import { STORM_DEFAULT_RAMP_SEC, STORM_GAP_SEC, stormPlan } from "./storm-plan.js";

const TARGET = (__ENV.TARGET || "http://127.0.0.1:8080").replace(/\/+$/, "");
const MCP_PATH = __ENV.MCP_PATH || "/mcp";
const URL = TARGET + (MCP_PATH.startsWith("/") ? MCP_PATH : `/${MCP_PATH}`);
const STREAM = __ENV.STREAM || "streamable";
if (STREAM !== "streamable" && STREAM !== "legacy-sse") {
  throw new Error(`STREAM must be "streamable" or "legacy-sse", got ${JSON.stringify(STREAM)}`);
}
const SSE_URL = `${TARGET}${__ENV.SSE_PATH || "/sse"}`;
const LEVELS = (__ENV.LEVELS || "10,100").split(",").map((v) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 20000) throw new Error(`LEVELS must list 1 to 20000, got ${v}`);
  return n;
});
// Each level's streams open spread evenly over RAMP s (or at RATE streams/s), by at most VUS (or
// MAX_VUS) VUs; all of them are then held for the level's share of DURATION, and closed together.
const VUS = positiveInt("VUS", 10);
const RATE = __ENV.RATE ? positiveInt("RATE", 1) : 0;
const POOL = RATE ? positiveInt("MAX_VUS", VUS) : VUS;
const RAMP = positiveInt("RAMP", STORM_DEFAULT_RAMP_SEC);
const DURATION = positiveInt("DURATION", 10);
// Idle seconds before the first level (the server's idle RSS), and after each (closes settle).
const WARMUP = nonNegativeInt("WARMUP", 0);
const GAP = nonNegativeInt("GAP", STORM_GAP_SEC);
const SUMMARY_PATH = __ENV.SUMMARY_PATH || "";
// 2025-11-25 lets a server prime a stream with an event id at once; every SDK tested accepts it.
const PROTOCOL_VERSION = "2025-11-25";

/** When each level opens, holds and ends, in s from the test's start: the summary's `plan` too. */
const PLAN = stormPlan({
  levels: LEVELS,
  rate: RATE,
  ramp: RAMP,
  duration: DURATION,
  warmup: WARMUP,
  gap: GAP,
  pool: POOL,
});

export const options = {
  scenarios: Object.fromEntries(
    PLAN.map((p, k) => [
      `level_${k}`,
      {
        executor: "per-vu-iterations",
        exec: "level",
        vus: p.vus,
        iterations: 1,
        startTime: `${p.startSec}s`,
        maxDuration: `${p.holdToSec - p.startSec + 30}s`,
        tags: { level: String(p.level) },
      },
    ]),
  ),
  discardResponseBodies: true,
  systemTags: systemTags("url"),
  summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(99)", "count"],
  // Always-true thresholds make k6 keep these submetrics for the summary: those perflab checks its
  // own counts against, and each level's.
  thresholds: Object.fromEntries([
    ["http_reqs{phase:measure}", ["count>=0"]],
    ["http_reqs{phase:measure,method:initialize}", ["count>=0"]],
    ["http_req_duration{phase:measure,method:initialize}", ["max>=0"]],
    ["http_req_failed{phase:measure}", ["rate>=0"]],
    ...PLAN.flatMap(({ level }) => [
      [`storm_established{level:${level}}`, ["count>=0"]],
      [`storm_failed{level:${level}}`, ["count>=0"]],
      [`storm_dropped{level:${level}}`, ["count>=0"]],
      [`storm_silent{level:${level}}`, ["count>=0"]],
      [`storm_establish_ms{level:${level}}`, ["max>=0"]],
      [`storm_stream_open_ms{level:${level}}`, ["max>=0"]],
      [`storm_first_event_ms{level:${level}}`, ["max>=0"]],
    ]),
  ]),
};

const established = new Counter("storm_established");
const failed = new Counter("storm_failed");
const dropped = new Counter("storm_dropped");
// Streams held to the end without a single event from the server (their response stood for one).
const silent = new Counter("storm_silent");
const establishMs = new Trend("storm_establish_ms", true);
const streamOpenMs = new Trend("storm_stream_open_ms", true);
const firstEventMs = new Trend("storm_first_event_ms", true);

export function setup() {
  return { startMs: Date.now() - exec.instance.currentTestRunDuration, plan: PLAN };
}

/** One VU's share of a level: streams slot, slot + vus, …, each opened at its time on the ramp. */
export async function level(data) {
  // Also tells perflab's output when the test began; the levels start after the warm-up.
  const phase = phaseOf(WARMUP);
  const plan = PLAN[Number(exec.scenario.name.slice("level_".length))];
  const slot = exec.scenario.iterationInTest;
  const opens = [];
  for (let i = slot; i < plan.level; i += plan.vus) {
    const at = data.startMs + (plan.startSec + ((plan.holdFromSec - plan.startSec) * i) / plan.level) * 1000;
    opens.push(wait(at).then(() => openAndHold(phase, data.startMs + plan.holdToSec * 1000)));
  }
  await Promise.all(opens);
}

const wait = (atMs) => new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - Date.now())));

async function openAndHold(phase, untilMs) {
  const start = Date.now();
  const session = STREAM === "streamable" ? await initialize(phase) : null;
  if (STREAM === "streamable" && session === null) {
    failed.add(1);
    return;
  }
  if (session) establishMs.add(Date.now() - start);
  const headers = session ? { "Mcp-Session-Id": session.id, "MCP-Protocol-Version": session.version } : {};
  const stream = await hold(session ? URL : SSE_URL, { headers, holdMs: Math.max(1, untilMs - Date.now()) });
  record(stream);
  if (session) await close(phase, session);
}

// A legacy stream is usable once its `endpoint` event came: that is its time to establish.
function record(stream) {
  const opened = stream.status === 200 && stream.endedBy !== "status" && stream.endedBy !== "error";
  const usable = opened && (STREAM === "streamable" || stream.firstEvent === "endpoint");
  if (!usable) {
    failed.add(1);
    return;
  }
  established.add(1);
  streamOpenMs.add(stream.openMs);
  if (STREAM === "legacy-sse") establishMs.add(stream.firstEventMs);
  // A standalone GET stream carries nothing until the server has something to say (servers/
  // CONTRACT.md: headers at once, no events of its own): there its first sign of life, the response
  // itself, stands for the first event, and storm_silent counts the streams where it did.
  if (stream.firstEventMs >= 0) firstEventMs.add(stream.firstEventMs);
  else {
    firstEventMs.add(stream.openMs);
    silent.add(1);
  }
  if (stream.endedBy === "closed") dropped.add(1);
}

let nextId = 1;

async function initialize(phase) {
  const id = nextId++;
  const res = await post(
    phase,
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
    "initialize",
    null,
  );
  const sessionId = res.headers["Mcp-Session-Id"];
  if (res.status !== 200 || !sessionId) return null;
  const session = { id: sessionId, version: protocolOf(res.body) };
  const note = await post(
    phase,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    "notifications/initialized",
    session,
  );
  return note.status === 202 || note.status === 200 ? session : null;
}

// The negotiated version, from a JSON or an SSE answer; ours when the body does not say.
function protocolOf(body) {
  const match = /"protocolVersion"\s*:\s*"([^"]+)"/.exec(body || "");
  return match ? match[1] : PROTOCOL_VERSION;
}

function post(phase, message, method, session) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (session)
    Object.assign(headers, { "Mcp-Session-Id": session.id, "MCP-Protocol-Version": session.version });
  return http.asyncRequest("POST", URL, JSON.stringify(message), {
    headers,
    tags: { method, phase },
    responseType: method === "initialize" ? "text" : "none",
  });
}

function close(phase, session) {
  return http.asyncRequest("DELETE", URL, null, {
    headers: { "Mcp-Session-Id": session.id, "MCP-Protocol-Version": session.version },
    tags: { method: "DELETE", phase },
    responseType: "none",
    responseCallback: http.expectedStatuses({ min: 200, max: 299 }, 404, 405),
  });
}

export const handleSummary = summaryTo(SUMMARY_PATH, (data) =>
  PLAN.map(({ level }) => {
    const count = (name) => valuesOf(data, `${name}{level:${level}}`).count || 0;
    const p99 = (name) => ms(valuesOf(data, `${name}{level:${level}}`)["p(99)"]);
    return `level ${level}: established ${count("storm_established")}, failed ${count("storm_failed")}, dropped ${count("storm_dropped")}, silent ${count("storm_silent")}; p99 establish ${p99("storm_establish_ms")}, first event ${p99("storm_first_event_ms")}`;
  }).join("\n"),
);
