import { execFile } from "node:child_process";
import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { loadServerCatalog } from "@perflab/catalog";
import { type DriverId, JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { createApiToken, createDb, type Db, ensureDefaultWorkspace } from "@perflab/db";
import { localDriver, waitForHealthy } from "@perflab/worker/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Queue } from "bullmq";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { freePort, repoRoot, type Service, startRedis, startWeb } from "../../scripts/lib/services.ts";

let db: Db | null = null;
export function testDb(): Db {
  db ??= createDb(inject("databaseUrl"));
  return db;
}

export function redisConnection(redisUrl: string = inject("redisUrl")) {
  const url = new URL(redisUrl);
  return { host: url.hostname, port: Number(url.port) };
}

type CellInput = {
  serverName: string;
  vus: number;
  durationSeconds: number;
  warmupSeconds: number;
  tool?: string;
  args?: object;
  /** More of the scenario's params (sessionsPerVu, thinkMs, session). */
  params?: object;
  driver?: DriverId;
  limits?: { cpus?: number; memoryMb?: number };
};

/**
 * Queues a run straight into Postgres and BullMQ, the way the web app does, for servers that only
 * the test catalog knows (the web app validates against the real one).
 */
export async function queueRun(
  cells: CellInput[],
  options: { redisUrl?: string; enqueue?: boolean; db?: Db } = {},
): Promise<{ runId: string; cellIds: string[] }> {
  const db = options.db ?? testDb();
  const workspace = await db.workspace.upsert({
    where: { slug: "tests" },
    create: { slug: "tests", name: "Tests" },
    update: {},
  });
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      name: "integration",
      spec: { cooldownSec: 0 },
      cellsTotal: cells.length,
      cells: {
        create: cells.map((c, index) => ({
          index,
          serverName: c.serverName,
          scenario: "mcp-tool-call",
          loadLevel: { vus: c.vus },
          params: { tool: c.tool ?? "echo", arguments: c.args ?? { message: "hello" }, ...c.params },
          durationSeconds: c.durationSeconds,
          warmupSeconds: c.warmupSeconds,
          driver: c.driver ?? "local",
          limits: c.limits,
        })),
      },
    },
    include: { cells: { orderBy: { index: "asc" } } },
  });
  if (options.enqueue === false) return { runId: run.id, cellIds: run.cells.map((c) => c.id) };
  const queue = new Queue(QUEUE_CELLS, { connection: redisConnection(options.redisUrl) });
  await queue.addBulk(
    run.cells.map((c) => ({
      name: JOB_CELL_RUN,
      data: { runId: run.id, cellId: c.id },
      opts: { jobId: c.id },
    })),
  );
  await queue.close();
  return { runId: run.id, cellIds: run.cells.map((c) => c.id) };
}

export async function waitForRun(runId: string, timeoutMs: number, db: Db = testDb()) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (["succeeded", "failed", "partial", "cancelled"].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`run ${runId} did not finish within ${timeoutMs} ms`);
}

/** Pids of processes started for a cell (the marker the worker puts in their environment). */
export async function processesOfCell(cellId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`PERFLAB_CELL=${cellId}`)) pids.push(Number(name));
  }
  return pids;
}

/** Polls `fn` every 200 ms until it returns something truthy, which it returns; fails naming `what`. */
/** Waits for a cell's measured window to have begun (its k6 started). */
export function untilMeasuring(db: Db, cellId: string, timeoutMs = 60_000) {
  return until(
    async () => (await db.cell.findUniqueOrThrow({ where: { id: cellId } })).measureStartedAt,
    timeoutMs,
    `cell ${cellId} to start measuring`,
  );
}

export async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await fn();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A Redis of the test's own: a worker on it never takes the suite worker's jobs, nor the suite's its. */
export async function startOwnRedis(name: string): ReturnType<typeof startRedis> {
  return startRedis({ dir: path.join(inject("tmpDir"), `redis-${name}`), port: await freePort() });
}

/** A worker of the test's own: the test catalog (reference and test-only servers) and its own work dir. */
export function ownWorkerEnv(name: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    PERFLAB_SERVERS_DIR: inject("serversDir"),
    PERFLAB_WORK_DIR: path.join(inject("tmpDir"), `work-${name}`),
    ...env,
  };
}

type OpenApiDoc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
  components: { schemas: Record<string, object> };
};
let doc: OpenApiDoc | null = null;

/** Asserts a body against the schema the OpenAPI document declares for it (formats unchecked here). */
export async function expectConforms(
  body: unknown,
  route: string,
  method: string,
  status: number,
  mediaType: string,
) {
  doc ??= (await (await fetch(`${inject("webUrl")}/api/v1/openapi.json`)).json()) as OpenApiDoc;
  const schema = doc.paths[route]?.[method]?.responses[String(status)]?.content?.[mediaType]?.schema;
  expect(schema, `${method} ${route} ${status} ${mediaType}`).toBeDefined();
  const check = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile({
    ...schema,
    components: doc.components,
  });
  expect(check(body), JSON.stringify(check.errors)).toBe(true);
}

/** A JSON request to the web app under test: its status and body. */
export async function api(pathname: string, init?: RequestInit) {
  const response = await fetch(`${inject("webUrl")}${pathname}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Queues a one-round matrix on go and node through the REST API (no cool-down) and waits for it: the
 * run's detail as the API gives it, typed by the caller.
 */
export async function runMatrixOnGoAndNode<Detail>(
  scenario: { id: string; params: Record<string, unknown> },
  load: { vus: number; durationSec: number; warmupSec: number },
): Promise<{ runId: string; detail: Detail }> {
  const created = await api("/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      servers: ["go", "node"],
      scenarios: [scenario],
      loadLevels: [{ vus: load.vus }],
      durationSec: load.durationSec,
      warmupSec: load.warmupSec,
      rounds: 1,
      cooldownSec: 0,
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const runId = created.body.runId as string;
  await waitForRun(runId, 150_000);
  return { runId, detail: (await api(`/api/v1/runs/${runId}`)).body as unknown as Detail };
}

/** The Go reference server started as the local driver starts it, healthy, for tests that run k6 by hand. */
export async function startGoServer(cellId: string, env: Record<string, string> = {}) {
  const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await localDriver.start({ server: go, cellId, port, env });
  await waitForHealthy({ baseUrl, mcpPath: go.mcpPath, timeoutMs: 30_000, exited: server.exited });
  return { server, baseUrl, mcpPath: go.mcpPath };
}

/**
 * What a CI step runs: perflab's k6 with its output extension and mcp-tool-call.js, writing the
 * per-second output (`out`) and k6's own summary (`summary`) to files to upload.
 */
export async function runK6ToFiles(
  dir: string,
  name: string,
  env: {
    TARGET: string;
    MCP_PATH: string;
    WARMUP: string;
    DURATION: string;
    TOOL: string;
    /** Unset: the script sends the tool's defaults. */
    ARGS?: string;
  } & ({ VUS: string } | { RATE: string; MAX_VUS: string }),
): Promise<{ out: string; summary: string }> {
  await mkdir(dir, { recursive: true });
  const out = path.join(dir, `${name}.ndjson`);
  const summary = path.join(dir, `${name}.summary.json`);
  await promisify(execFile)(
    path.join(repoRoot, ".perflab/bin/k6"),
    [
      "run",
      "--no-usage-report",
      "--quiet",
      "--out",
      `perflab=${out}`,
      "packages/scenarios/k6/mcp-tool-call.js",
    ],
    {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        K6_NO_USAGE_REPORT: "true",
        ...env,
        SUMMARY_PATH: summary,
      },
      timeout: 60_000,
    },
  );
  return { out, summary };
}

/**
 * What a CI job would upload: perflab's k6 output of a short echo load (1 VU, no warm-up) on the Go
 * server, which is stopped again.
 */
export async function echoUploadOf(name: string, durationSec = 2): Promise<string> {
  const go = await startGoServer(`${name}-upload`);
  try {
    const files = await runK6ToFiles(path.join(inject("tmpDir"), name), "out", {
      TARGET: go.baseUrl,
      MCP_PATH: go.mcpPath,
      VUS: "1",
      WARMUP: "0",
      DURATION: String(durationSec),
      TOOL: "echo",
      ARGS: JSON.stringify({ message: name }),
    });
    return await readFile(files.out, "utf8");
  } finally {
    await go.server.stop(5_000);
  }
}

/** Debian's Chromium, headless, as every browser test drives it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A page of `browser`; on failure, a screenshot beside the test results shows what the user saw. */
export async function pageOf(browser: Browser, name: string, fn: (page: Page) => Promise<void>) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await fn(page);
  } catch (error) {
    const dir = path.join(import.meta.dirname, "../test-results");
    await mkdir(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true }).catch(() => undefined);
    throw error;
  } finally {
    await page.close();
  }
}

/** A web app of a shared lab (PERFLAB_ACCESS=token) on the suite's Postgres and Redis. */
export async function startTokenLab(
  access: "token" | "private" = "token",
): Promise<Service & { url: string }> {
  return startWeb({
    databaseUrl: inject("databaseUrl"),
    redisUrl: inject("redisUrl"),
    port: await freePort(),
    env: { PERFLAB_ACCESS: access },
  });
}

/** A web app of a lab whose results are private (PERFLAB_ACCESS=private), on the suite's services. */
export const startPrivateLab = () => startTokenLab("private");

/** An API token of the lab's workspace, made straight in the database as `pnpm -s token create` does. */
export async function tokenInDb(
  name: string,
  expiresAt: Date | null = null,
  role: "admin" | "member" = "member",
) {
  const db = testDb();
  return createApiToken(db, { workspaceId: (await ensureDefaultWorkspace(db)).id, name, expiresAt, role });
}

/** The perflab command as a CI job runs it, against the suite's web app: its exit code and output. */
export async function perflab(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return perflabAt(inject("webUrl"), ...args);
}

/** The perflab command against the lab at `url` (a proxy in front of the suite's, say). */
export async function perflabAt(
  url: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    [path.join(repoRoot, "packages/cli/bin/perflab.mjs"), ...args, "--url", url],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      timeout: 120_000,
    },
  ).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === "number" ? error.code : -1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
}
