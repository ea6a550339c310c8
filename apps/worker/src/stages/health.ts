const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "perflab-health", version: "1" },
  },
});

/**
 * One MCP initialize; healthy means a JSON-RPC result came back. Returns when the result arrived
 * (the session's DELETE afterwards is not part of the cold start), or null.
 */
export async function mcpInitializeSucceeds(baseUrl: string, mcpPath: string): Promise<number | null> {
  const url = `${baseUrl}${mcpPath}`;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INITIALIZE,
      signal: AbortSignal.timeout(2_000),
    });
    const body = await res.text();
    const answeredAt = Date.now();
    const sessionId = res.headers.get("mcp-session-id");
    if (sessionId) {
      await fetch(url, {
        method: "DELETE",
        headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
        signal: AbortSignal.timeout(2_000),
      }).catch(() => undefined);
    }
    return res.ok && body.includes('"result"') ? answeredAt : null;
  } catch {
    return null;
  }
}

/** One GET of a REST-only server's health path (no MCP to initialize); healthy means 200. */
export async function healthPathAnswers(baseUrl: string, healthPath: string): Promise<number | null> {
  try {
    const res = await fetch(`${baseUrl}${healthPath}`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.ok ? Date.now() : null;
  } catch {
    return null;
  }
}

export class HealthTimeoutError extends Error {}
export class ExitedBeforeHealthyError extends Error {}

/**
 * Polls until the server answers an MCP initialize (or, for a REST-only server, whose `mcpPath` is
 * null, a GET of `healthPath`), it exits, the timeout passes or `signal` aborts (rejecting with its
 * reason). Returns the time at which it became healthy (for cold start = healthy − spawned).
 */
export async function waitForHealthy(input: {
  baseUrl: string;
  mcpPath: string | null;
  /** What a server without MCP answers (its manifest's healthPath); `/health` when left out. */
  healthPath?: string | undefined;
  timeoutMs: number;
  exited: Promise<unknown>;
  signal?: AbortSignal;
}): Promise<number> {
  let exited = false;
  input.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + input.timeoutMs;
  while (Date.now() < deadline) {
    input.signal?.throwIfAborted();
    if (exited) throw new ExitedBeforeHealthyError("server exited before it became healthy");
    const healthyAt =
      input.mcpPath === null
        ? await healthPathAnswers(input.baseUrl, input.healthPath ?? "/health")
        : await mcpInitializeSucceeds(input.baseUrl, input.mcpPath);
    if (healthyAt !== null) return healthyAt;
    await new Promise((r) => setTimeout(r, 25));
  }
  const what = input.mcpPath === null ? `GET ${input.healthPath ?? "/health"}` : "an MCP initialize";
  throw new HealthTimeoutError(`server did not answer ${what} within ${input.timeoutMs} ms`);
}
