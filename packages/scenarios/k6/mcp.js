// An MCP client over Streamable HTTP for the scenario scripts beside it: sessions (initialize →
// notifications/initialized … DELETE), tools/list and tools/call, each request tagged with its
// `phase`, `method` (the JSON-RPC method, or DELETE) and `tool`, each failure counted in
// mcp_op_errors. Plain k6 JavaScript, imported by the MCP scenario scripts beside it.
import { check } from "k6";
import http from "k6/http";
import { Counter } from "k6/metrics";
import { timeoutParams } from "./load.js";

export const PROTOCOL_VERSION = "2025-06-18";

const mcpOpErrors = new Counter("mcp_op_errors");
// TIMEOUT_MS, read once per VU.
const TIMEOUT = timeoutParams();
const DELETE_ANSWERS = http.expectedStatuses({ min: 200, max: 299 }, 405);
let nextId = 1;

/** The MCP endpoint from the scripts' TARGET and MCP_PATH. */
export function mcpUrl(target, path) {
  const base = (target || "http://127.0.0.1:8080").replace(/\/+$/, "");
  const endpoint = path || "/mcp";
  return base + (endpoint.startsWith("/") ? endpoint : `/${endpoint}`);
}

/**
 * A session not yet open: its id once the server gives one, and the protocol version agreed.
 * `initialized` turns false again when the server drops it (a 404), so the caller opens a new one.
 */
export function newSession() {
  return { sessionId: null, protocolVersion: PROTOCOL_VERSION, initialized: false };
}

/**
 * Tool arguments as JSON text that parses to an object: sent as they are, so a 1 MiB argument is
 * serialized once, not on every call.
 */
export function argumentsText(raw, source) {
  const v = JSON.parse(raw);
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`${source} must be a JSON object`);
  }
  return raw.trim();
}

/** initialize, then notifications/initialized: whether the session is open. */
export function openSession(url, phase, session) {
  session.sessionId = null;
  session.protocolVersion = PROTOCOL_VERSION;
  const id = nextId++;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "perflab-k6", version: "1.0.0" },
    },
  });
  const res = post(url, body, tags(phase, "initialize", ""), "text", session, false);
  const reply = rpcReply(res, id);
  if (
    !succeeded(
      res,
      "initialize succeeded",
      () => res.status === 200 && reply !== null && reply.result !== undefined,
    )
  ) {
    mcpOpErrors.add(1, { phase, method: "initialize" });
    return false;
  }
  session.sessionId = header(res, "mcp-session-id");
  if (typeof reply.result.protocolVersion === "string") {
    session.protocolVersion = reply.result.protocolVersion;
  }
  const note = post(
    url,
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    tags(phase, "notifications/initialized", ""),
    "none",
    session,
    true,
  );
  if (
    !succeeded(note, "notifications/initialized accepted", () => note.status === 202 || note.status === 200)
  ) {
    mcpOpErrors.add(1, { phase, method: "notifications/initialized" });
    return false;
  }
  session.initialized = true;
  return true;
}

/** tools/list: whether the server listed its tools. */
export function listTools(url, phase, session) {
  const id = nextId++;
  const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{}}`;
  return request(url, phase, session, { id, body, method: "tools/list", tool: "" });
}

/**
 * tools/call of `tool` with `args`, JSON text of an object: whether it succeeded, and its result
 * passed `accepts` when given (echo's answer is the message sent).
 */
export function callTool(url, phase, session, tool, args, accepts) {
  const id = nextId++;
  const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${args}}}`;
  return request(url, phase, session, { id, body, method: "tools/call", tool, accepts });
}

// A request answered by a JSON-RPC result (not an error, not a tool error, one `accepts` takes).
function request(url, phase, session, { id, body, method, tool, accepts }) {
  const res = post(url, body, tags(phase, method, tool), "text", session, true);
  if (res.status === 404 && session.sessionId !== null) {
    // The server dropped the session: the caller opens a new one.
    session.initialized = false;
  }
  const reply = rpcReply(res, id);
  const ok = succeeded(
    res,
    `${method} succeeded`,
    () =>
      res.status === 200 &&
      reply !== null &&
      reply.error === undefined &&
      reply.result !== undefined &&
      reply.result.isError !== true &&
      (accepts === undefined || accepts(reply.result)),
  );
  if (!ok) {
    mcpOpErrors.add(1, { phase, method, tool });
  }
  return ok;
}

/**
 * Ends the session with DELETE when the server gave one (stateless servers give none). A server
 * may refuse client-initiated termination with 405; that is an answer, not an error.
 */
export function closeSession(url, phase, session) {
  const id = session.sessionId;
  session.initialized = false;
  session.sessionId = null;
  if (id === null) {
    return;
  }
  const res = http.del(url, null, {
    headers: { "Mcp-Session-Id": id, "MCP-Protocol-Version": session.protocolVersion },
    tags: tags(phase, "DELETE", ""),
    responseType: "none",
    // So k6's http_req_failed agrees with the check: a 405 is not a failed request either.
    responseCallback: DELETE_ANSWERS,
    ...TIMEOUT,
  });
  if (
    !succeeded(
      res,
      "session DELETE accepted",
      () => (res.status >= 200 && res.status < 300) || res.status === 405,
    )
  ) {
    mcpOpErrors.add(1, { phase, method: "DELETE" });
  }
}

function succeeded(res, name, test) {
  return check(res, { [name]: test });
}

function post(url, body, requestTags, responseType, session, versioned) {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (versioned) {
    headers["MCP-Protocol-Version"] = session.protocolVersion;
  }
  if (session.sessionId !== null) {
    headers["Mcp-Session-Id"] = session.sessionId;
  }
  return http.post(url, body, { headers, tags: requestTags, responseType, ...TIMEOUT });
}

function tags(phase, method, tool) {
  return { phase, method, tool };
}

// The JSON-RPC response with the given id from a JSON or SSE body, or null.
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

// SSE events may be preceded by an empty priming event and may carry other messages
// (notifications); the reply is the `data:` payload with our id. Multi-line data fields of one
// event are joined as the SSE spec says.
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
