/**
 * The OpenAPI document of /api/v1 against the running web app: it is valid OpenAPI 3.1, it covers
 * every route file, and real responses conform to the schemas it declares.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "../../scripts/lib/services.ts";
import { queueRun, testDb } from "./helpers.ts";

// ajv-formats is CommonJS; its default export arrives wrapped once more under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule;

type Schema = Record<string, unknown>;
type OpenApiDoc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
};

const webUrl = () => inject("webUrl");
const apiDir = path.join(repoRoot, "apps/web/src/app/api/v1");
const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

let doc: OpenApiDoc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

/** Asserts a body against the schema the document declares for this response. */
function expectConforms(body: unknown, route: string, method: string, status: number, mediaType: string) {
  const schema = doc.paths[route]?.[method]?.responses[String(status)]?.content?.[mediaType]?.schema;
  if (!schema) throw new Error(`the document has no ${mediaType} schema for ${method} ${route} ${status}`);
  // Local $refs (#/components/schemas/...) resolve against the schema's own root.
  const check = ajv.compile({ ...schema, components: doc.components });
  if (!check(body)) {
    throw new Error(
      `${method} ${route} ${status} does not conform:\n${ajv.errorsText(check.errors, { separator: "\n" })}`,
    );
  }
}

/** Every route.ts under api/v1 as an OpenAPI path, with the HTTP methods it exports. */
function routeFiles(dir = apiDir): { path: string; methods: string[] }[] {
  const found: { path: string; methods: string[] }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFiles(full));
    else if (entry.name === "route.ts") {
      const relative = path.relative(apiDir, dir).split(path.sep).filter(Boolean);
      const segments = relative.map((s) => s.replace(/^\[(\w+)\]$/, "{$1}"));
      const source = readFileSync(full, "utf8");
      found.push({
        path: ["/api/v1", ...segments].join("/"),
        methods: methods.filter((m) =>
          new RegExp(`export (const|async function|function) ${m}\\b`).test(source),
        ),
      });
    }
  }
  return found;
}

async function api(route: string, init?: RequestInit) {
  const response = await fetch(`${webUrl()}${route}`, init);
  const text = await response.text();
  return { response, body: text ? (JSON.parse(text) as unknown) : null };
}

const tinyMatrix = {
  name: "openapi conformance",
  servers: ["go"],
  scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
  loadLevels: [{ vus: 1 }],
  durationSec: 1,
  warmupSec: 0,
  cooldownSec: 0,
};

beforeAll(async () => {
  const { response, body } = await api("/api/v1/openapi.json");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  doc = body as OpenApiDoc;
});

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.specification).toBe("OpenAPI");
  });

  it("documents every route file and method under api/v1, and nothing else", () => {
    const routes = routeFiles();
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const route of routes) {
      expect(doc.paths, `${route.path} is not in the document`).toHaveProperty([route.path]);
      const documented = Object.keys(doc.paths[route.path] ?? {}).map((m) => m.toUpperCase());
      expect(documented.sort(), route.path).toEqual([...route.methods].sort());
    }
    expect(Object.keys(doc.paths).sort()).toEqual(routes.map((r) => r.path).sort());
  });
});

describe("responses conform to the document", () => {
  let runId: string;

  it("POST /api/v1/matrices: 201 for a valid matrix", async () => {
    const { response, body } = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(tinyMatrix),
    });
    expect(response.status, JSON.stringify(body)).toBe(201);
    expectConforms(body, "/api/v1/matrices", "post", 201, "application/json");
    // The check has teeth: a body of the wrong shape is rejected.
    expect(() =>
      expectConforms({ runId: 1, cells: [{}] }, "/api/v1/matrices", "post", 201, "application/json"),
    ).toThrow(/does not conform/);
    runId = (body as { runId: string }).runId;
  });

  it("POST /api/v1/matrices: 422 problem+json for an invalid one, and nothing written", async () => {
    const before = await testDb().run.count();
    const { response, body } = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...tinyMatrix, servers: ["nope"], loadLevels: [{ vus: 0 }] }),
    });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expectConforms(body, "/api/v1/matrices", "post", 422, "application/problem+json");
    const fields = (body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["servers.0", "loadLevels.0.vus"]));
    // A field not even of its type and a scenario's bad parameters come in the same answer.
    const mixed = await api("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...tinyMatrix,
        durationSec: "soon",
        scenarios: [
          { id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" }, thinkMs: -1 } },
        ],
      }),
    });
    expect(mixed.response.status).toBe(422);
    expect((mixed.body as { errors: { field: string }[] }).errors.map((e) => e.field).sort()).toEqual([
      "durationSec",
      "scenarios.0.params.thinkMs",
    ]);
    expect(await testDb().run.count()).toBe(before);
  });

  it("POST /api/v1/matrices: 422 for tool arguments over 64 KiB, 413 for a body over 1 MiB; nothing written", async () => {
    const before = await testDb().run.count();
    const post = (body: string) =>
      api("/api/v1/matrices", { method: "POST", headers: { "content-type": "application/json" }, body });
    // 200 KiB of arguments: one environment variable too large for k6 to start with.
    const big = { message: "x".repeat(200 * 1024) };
    const scenario = { id: "mcp-tool-call", params: { tool: "echo", arguments: big } };
    const invalid = await post(JSON.stringify({ ...tinyMatrix, scenarios: [scenario] }));
    expect(invalid.response.status).toBe(422);
    expectConforms(invalid.body, "/api/v1/matrices", "post", 422, "application/problem+json");
    expect((invalid.body as { errors: unknown[] }).errors).toEqual([
      { field: "scenarios.0.params.arguments", message: "must be at most 64 KiB as JSON (it is 201 KiB)" },
    ]);

    const huge = { ...tinyMatrix, name: "x".repeat(2 * 1024 * 1024) };
    const tooLarge = await post(JSON.stringify(huge));
    expect(tooLarge.response.status).toBe(413);
    expect(tooLarge.response.headers.get("content-type")).toBe("application/problem+json");
    expectConforms(tooLarge.body, "/api/v1/matrices", "post", 413, "application/problem+json");
    expect((tooLarge.body as { errors: { field: string }[] }).errors[0]?.field).toBe("(body)");

    const report = await api("/api/v1/reports", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ runId: "x", title: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(report.response.status).toBe(413);
    expectConforms(report.body, "/api/v1/reports", "post", 413, "application/problem+json");
    expect(await testDb().run.count()).toBe(before);
  });

  it("GET /api/v1/runs/{id}: limits only requested are not reported as enforced", async () => {
    // A docker cell as created, before a worker started its server: it holds the request (no cpus).
    const { runId: queued } = await queueRun(
      [
        {
          serverName: "go",
          vus: 1,
          durationSeconds: 1,
          warmupSeconds: 0,
          driver: "docker",
          limits: { memoryMb: 512 },
        },
      ],
      { enqueue: false },
    );
    // The run's spec as create-run stores it (queueRun writes a bare one).
    const limits = { memoryMb: 512 };
    await testDb().run.update({
      where: { id: queued },
      data: { spec: { ...tinyMatrix, rounds: 1, driver: "docker", limits } },
    });
    try {
      const { response, body } = await api(`/api/v1/runs/${queued}`);
      expect(response.status).toBe(200);
      expectConforms(body, "/api/v1/runs/{id}", "get", 200, "application/json");
      expect((body as { cells: { limits: unknown }[] }).cells[0]?.limits).toBeNull();
    } finally {
      await testDb().run.delete({ where: { id: queued } });
    }
  });

  it("GET /api/v1/runs/{id} and its event stream's snapshot", async () => {
    const { response, body } = await api(`/api/v1/runs/${runId}`);
    expect(response.status).toBe(200);
    expectConforms(body, "/api/v1/runs/{id}", "get", 200, "application/json");

    const controller = new AbortController();
    const events = await fetch(`${webUrl()}/api/v1/runs/${runId}/events`, { signal: controller.signal });
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/^data: .*\n\n/m.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    const data = /^data: (.*)$/m.exec(text)?.[1];
    const snapshot = JSON.parse(data ?? "null") as { type: string };
    expect(snapshot.type).toBe("snapshot");
    expectConforms(snapshot, "/api/v1/runs/{id}/events", "get", 200, "text/event-stream");

    const missing = await api("/api/v1/runs/no-such-run");
    expect(missing.response.status).toBe(404);
    expectConforms(missing.body, "/api/v1/runs/{id}", "get", 404, "application/problem+json");
  });

  it("GET /api/v1/servers", async () => {
    const { response, body } = await api("/api/v1/servers");
    expect(response.status).toBe(200);
    expectConforms(body, "/api/v1/servers", "get", 200, "application/json");
  });

  it("GET /api/v1/runs lists the new run with its page URL", async () => {
    const { response, body } = await api("/api/v1/runs");
    expect(response.status).toBe(200);
    expectConforms(body, "/api/v1/runs", "get", 200, "application/json");
    const runs = (body as { runs: { id: string; url: string; source: string }[] }).runs;
    expect(runs.length).toBeLessThanOrEqual(20);
    expect(runs.find((r) => r.id === runId)).toMatchObject({ url: `/runs/${runId}`, source: "api" });
  });

  it("GET /api/v1/runs filters by git fields and status and pages by cursor", async () => {
    const db = testDb();
    const workspace = await db.workspace.upsert({
      where: { slug: "tests" },
      create: { slug: "tests", name: "Tests" },
      update: {},
    });
    const repo = `acme/openapi-${Date.now()}`;
    const base = Date.now() - 60_000;
    for (const [i, branch, status] of [
      [0, "main", "succeeded"],
      [1, "main", "failed"],
      [2, "main", "succeeded"],
      [3, "dev", "succeeded"],
    ] as const) {
      await db.run.create({
        data: {
          workspaceId: workspace.id,
          source: "api",
          status,
          name: `ci ${i}`,
          spec: {},
          gitRepo: repo,
          gitBranch: branch,
          gitCommit: `c0ffee${i}`,
          gitPr: 7,
          createdAt: new Date(base + i * 1000),
        },
      });
    }
    const query = (params: Record<string, string>) =>
      api(`/api/v1/runs?${new URLSearchParams({ gitRepo: repo, ...params })}`);

    const first = await query({ gitBranch: "main", limit: "2" });
    expectConforms(first.body, "/api/v1/runs", "get", 200, "application/json");
    const page1 = first.body as { runs: { name: string; git: object }[]; nextCursor: string | null };
    expect(page1.runs.map((r) => r.name)).toEqual(["ci 2", "ci 1"]);
    expect(page1.runs[0]?.git).toEqual({ repo, branch: "main", commit: "c0ffee2", pr: 7 });
    expect(page1.nextCursor).toEqual(expect.any(String));

    const second = await query({ gitBranch: "main", limit: "2", cursor: page1.nextCursor! });
    const page2 = second.body as { runs: { name: string }[]; nextCursor: string | null };
    expect(page2.runs.map((r) => r.name)).toEqual(["ci 0"]);
    expect(page2.nextCursor).toBeNull();

    const failed = (await query({ status: "failed" })).body as { runs: { name: string }[] };
    expect(failed.runs.map((r) => r.name)).toEqual(["ci 1"]);
  });

  it("the dashboard's runs list reaches every run: 50 a page, then older runs, and back to the newest", async () => {
    const db = testDb();
    const workspace = await db.workspace.upsert({
      where: { slug: "tests" },
      create: { slug: "tests", name: "Tests" },
      update: {},
    });
    // 55 runs older than any other: the last pages of the list.
    const tag = `paged-${Date.now()}`;
    await db.run.createMany({
      data: Array.from({ length: 55 }, (_, i) => ({
        workspaceId: workspace.id,
        source: "api" as const,
        status: "succeeded" as const,
        name: `${tag}-${i}`,
        spec: {},
        createdAt: new Date(Date.UTC(2001, 0, 1) + i * 1000),
      })),
    });
    const seen: number[] = [];
    let path = "/";
    let pages = 0;
    for (;;) {
      const response = await fetch(`${webUrl()}${path}`);
      expect(response.status, path).toBe(200);
      const html = await response.text();
      pages++;
      if (path !== "/") expect(html, path).toContain('data-testid="runs-newest"');
      // Each name is in the table and again in the page's payload: the first sighting counts.
      const onPage = new Set<number>();
      for (const match of html.matchAll(new RegExp(`${tag}-(\\d+)`, "g"))) onPage.add(Number(match[1]));
      seen.push(...onPage);
      const older = /<a[^>]*data-testid="runs-older"[^>]*>/.exec(html)?.[0];
      if (!older) break;
      path = /href="([^"]+)"/.exec(older)![1]!.replaceAll("&amp;", "&");
      expect(pages, "pages walked").toBeLessThan(100);
    }
    // Each run once, newest first, over at least two pages.
    expect(seen).toEqual(Array.from({ length: 55 }, (_, i) => 54 - i));
    expect(pages).toBeGreaterThanOrEqual(2);
    // An address past the oldest run, or a made-up cursor, is not an error.
    const past = await fetch(`${webUrl()}/?before=${Date.UTC(2000, 0, 1)}.zzz`);
    expect(past.status).toBe(200);
    expect(await past.text()).toContain('data-testid="runs-none-older"');
    expect((await fetch(`${webUrl()}/?before=not-a-cursor`)).status).toBe(200);
  });

  it("GET /api/v1/runs: 422 problem+json naming each bad query parameter", async () => {
    const { response, body } = await api("/api/v1/runs?limit=0&status=done&cursor=bogus");
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expectConforms(body, "/api/v1/runs", "get", 422, "application/problem+json");
    const fields = (body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields.sort()).toEqual(["cursor", "limit", "status"]);

    const tooMany = await api("/api/v1/runs?limit=101");
    expect(tooMany.response.status).toBe(422);
    expect((tooMany.body as { errors: unknown[] }).errors).toEqual([
      { field: "limit", message: "must be at most 100" },
    ]);
  });

  it("the queued run finishes, and its finished detail still conforms", async () => {
    const deadline = Date.now() + 90_000;
    let body: { run: { status: string } } | null = null;
    while (Date.now() < deadline) {
      body = (await api(`/api/v1/runs/${runId}`)).body as { run: { status: string } };
      if (["succeeded", "failed", "cancelled", "partial"].includes(body.run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(["succeeded", "failed", "cancelled", "partial"]).toContain(body?.run.status);
    expectConforms(body, "/api/v1/runs/{id}", "get", 200, "application/json");
  });
});
