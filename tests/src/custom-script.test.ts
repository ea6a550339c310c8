/**
 * A user's own k6 script as a scenario (docs/custom-scripts.md): stored per workspace once the lab's
 * k6 inspects it, queued through the REST API against the reference servers and run by the real
 * worker and k6, its cells measured as the built-in scenarios' are (percentiles, CPU and RSS).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { createApiToken } from "@perflab/db";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/services.ts";
import { api, testDb, waitForRun } from "./helpers.ts";

/** An MCP client of its own: a session per VU, then one echo call per iteration (the operation). */
const MCP_SCRIPT = `import http from "k6/http";
import { check } from "k6";

const URL = __ENV.TARGET + __ENV.MCP_PATH;
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
let session = null;

function post(body, method, extra) {
  return http.post(URL, JSON.stringify(body), { headers: { ...HEADERS, ...extra }, tags: { method } });
}

export default function () {
  if (session === null) {
    const init = post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
      protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mine", version: "1" } } }, "initialize");
    session = { "mcp-session-id": init.headers["Mcp-Session-Id"] || "", "mcp-protocol-version": "2025-06-18" };
    post({ jsonrpc: "2.0", method: "notifications/initialized" }, "notifications/initialized", session);
  }
  const res = http.post(URL, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
    params: { name: "echo", arguments: { message: "mine" } } }), { headers: { ...HEADERS, ...session }, tags: { tool: "echo" } });
  check(res, { "status is 200": (r) => r.status === 200 });
}
`;

const BROKEN_SCRIPT = `import http from "k6/http";
export default function () {
  http.get(;
}
`;

const FAILING_SCRIPT = `import http from "k6/http";
export default function () {
  http.get(__ENV.TARGET + "/health");
  if (__ITER >= 2) throw new Error("the fixture ran out");
}
`;

const json = (body: unknown, token?: string) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

async function store(name: string, source: string) {
  return api("/api/v1/scripts", json({ name: `${name}-${Date.now().toString(36)}`, source }));
}

async function runScript(servers: string[], scriptId: string) {
  const created = await api(
    "/api/v1/matrices",
    json({
      servers,
      scenarios: [{ id: "k6-script", params: { scriptId } }],
      loadLevels: [{ vus: 2 }],
      durationSec: 3,
      warmupSec: 1,
      cooldownSec: 0,
    }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const runId = created.body.runId as string;
  await waitForRun(runId, 150_000);
  return (await api(`/api/v1/runs/${runId}`)).body as {
    run: { status: string };
    cells: {
      serverName: string;
      status: string;
      error: string | null;
      summary: Record<string, unknown> | null;
    }[];
  };
}

type Summary = {
  ops: number;
  requests: number;
  errors: number;
  latency: { p50: number | null; p99: number | null };
  cpuAvgPct: number | null;
  rssPeakBytes: number | null;
  operations: { method: string; tool: string }[];
};

/** A run of the script on these servers: every cell with percentiles, CPU and RSS, its echo calls the operations. */
async function expectMeasured(servers: string[], scriptId: string) {
  const { run, cells } = await runScript(servers, scriptId);
  expect(cells.map((c) => [c.serverName, c.error])).toEqual(servers.map((s) => [s, null]));
  expect(run.status).toBe("succeeded");
  for (const cell of cells) {
    const summary = cell.summary as Summary;
    // The session's requests (tagged initialize, notifications/initialized) are not operations.
    expect(summary.ops, cell.serverName).toBeGreaterThan(0);
    expect(summary.requests).toBeGreaterThanOrEqual(summary.ops);
    expect(summary.errors).toBe(0);
    expect(summary.latency.p50).not.toBeNull();
    expect(summary.latency.p99).not.toBeNull();
    expect(summary.cpuAvgPct).not.toBeNull();
    expect(summary.rssPeakBytes).toBeGreaterThan(0);
    expect(summary.operations).toContainEqual(
      expect.objectContaining({ method: "tools/call", tool: "echo" }),
    );
  }
}

const rustBuilt = existsSync(path.join(repoRoot, "servers/rust/bin/server"));

describe("a user's own k6 script", () => {
  it("is refused with a 422 naming its line when k6 cannot load it, and stored when it can", async () => {
    const broken = await store("broken", BROKEN_SCRIPT);
    expect(broken.status).toBe(422);
    const errors = broken.body.errors as { field: string; message: string }[];
    expect(errors[0]?.field).toBe("source");
    expect(errors[0]?.message).toMatch(/^line 3, column \d+: /);
    const noDefault = await store("no-default", "export const options = {};\nexport function setup() {}\n");
    expect(noDefault.status).toBe(422);
    expect(JSON.stringify(noDefault.body.errors)).toMatch(/default function/);
    const empty = await api("/api/v1/scripts", json({ name: "x" }));
    expect(empty.status).toBe(422);
    expect((empty.body.errors as { field: string }[]).map((e) => e.field)).toEqual(["source"]);

    const stored = await store("mine", MCP_SCRIPT);
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    expect(stored.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    const listed = await api("/api/v1/scripts");
    expect((listed.body.scripts as { id: string }[]).map((s) => s.id)).toContain(stored.body.id);
  });

  it("is never seen, nor run, by another workspace", async () => {
    const stored = await store("private", MCP_SCRIPT);
    const db = testDb();
    const other = await db.workspace.create({ data: { slug: `other-${Date.now()}`, name: "Other" } });
    const { secret } = await createApiToken(db, { workspaceId: other.id, name: "other", role: "member" });
    const auth = { headers: { authorization: `Bearer ${secret}` } };
    const listed = await api("/api/v1/scripts", auth);
    expect(listed.body.scripts).toEqual([]);
    expect((await api(`/api/v1/scripts/${stored.body.id}`, auth)).status).toBe(404);
    const queued = await api(
      "/api/v1/matrices",
      json(
        {
          servers: ["go"],
          scenarios: [{ id: "k6-script", params: { scriptId: stored.body.id } }],
          loadLevels: [{ vus: 1 }],
          durationSec: 2,
        },
        secret,
      ),
    );
    expect(queued.status).toBe(422);
    expect((queued.body.errors as { field: string }[]).map((e) => e.field)).toEqual([
      "scenarios.0.params.scriptId",
    ]);
  });

  it("runs against the Go and Node servers with the lab's load, measured as the built-in ones", async () => {
    const stored = await store("matrix", MCP_SCRIPT);
    await expectMeasured(["go", "node"], stored.body.id as string);
  });

  it.runIf(rustBuilt)("runs against the Rust server (when built)", async () => {
    const stored = await store("rust", MCP_SCRIPT);
    await expectMeasured(["rust"], stored.body.id as string);
  });

  it("fails its cell with k6's message when the script throws at run time", async () => {
    const stored = await store("failing", FAILING_SCRIPT);
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    const { run, cells } = await runScript(["go"], stored.body.id as string);
    expect(run.status).toBe("failed");
    expect(cells[0]?.status).toBe("failed");
    expect(cells[0]?.error).toMatch(/k6 failed \(exit 108\).*the script failed: Error: the fixture ran out/);
  });
});
