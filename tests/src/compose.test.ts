/**
 * The shared-lab deployment for real, under both Compose implementations a lab may have: Debian's
 * `docker-compose` (v1) and Compose v2 (`docker compose`, built by scripts/docker/install-compose.sh).
 * Each brings docker-compose.yml up under its own project name, on free ports and its own host id (so it meets neither the suite's own
 * Postgres, Redis and web app nor a user's lab), runs POSTed to its REST API and run by its worker —
 * local and docker drivers, fixture tools answered by the compose `fixtures` service — then
 * `docker-compose down -v`, whatever happened. Needs the images of
 * `scripts/docker/build-images.sh --apps go fixtures` (scripts/test.sh builds them).
 */
import { execFile, spawnSync } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { type CatalogEntry, loadServerCatalog, serverImageTag, withVariants } from "@perflab/catalog";
import type { DriverId } from "@perflab/contracts";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";

const exec = promisify(execFile);
const PREFIX = "perflab-compose-test-";
let project = "";
let composeCommand = "docker-compose";

const implementations = [
  {
    name: "v1",
    label: "Compose v1 (Debian's docker-compose)",
    command: "docker-compose",
    missing: "scripts/test.sh installs Debian's docker-compose",
  },
  {
    name: "v2",
    label: "Compose v2 (docker compose)",
    command: path.join(repoRoot, ".perflab/bin/docker-compose-v2"),
    missing: "scripts/docker/install-compose.sh builds it (scripts/test.sh runs it)",
  },
];
const composeFile = path.join(repoRoot, "docker-compose.yml");
const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go") as CatalogEntry;

let composeEnv: NodeJS.ProcessEnv = process.env;
let webUrl = "";
let fixtureApiUrl = "";

async function compose(args: string[], timeoutMs = 120_000, projectName = project): Promise<string> {
  try {
    const { stdout, stderr } = await exec(
      composeCommand,
      ["-p", projectName, "-f", composeFile, "--ansi", "never", ...args],
      { env: composeEnv, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: "SIGKILL" },
    );
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${path.basename(composeCommand)} ${args.join(" ")} failed: ${e.message}\n${(e.stdout ?? "") + (e.stderr ?? "")}`,
    );
  }
}

const logs = (service = "", tail = 60) =>
  compose(["logs", "--no-color", `--tail=${tail}`, ...(service ? [service] : [])]).catch(
    (error: Error) => error.message,
  );

/** Stacks this test left behind when it was killed (restart: unless-stopped keeps them up): > 1 h old. */
async function removeStaleStacks(): Promise<void> {
  const ids = (await exec("docker", ["ps", "-aq", "--filter", "label=com.docker.compose.project"])).stdout
    .split("\n")
    .filter(Boolean);
  if (ids.length === 0) return;
  const { stdout } = await exec("docker", [
    "inspect",
    "-f",
    '{{index .Config.Labels "com.docker.compose.project"}} {{.Created}}',
    ...ids,
  ]);
  const stale = new Set<string>();
  for (const line of stdout.split("\n")) {
    const [name, created] = line.split(" ");
    if (name?.startsWith(PREFIX) && name !== project && Date.now() - Date.parse(created!) > 3_600_000) {
      stale.add(name);
    }
  }
  for (const name of stale) await compose(["down", "-v", "--remove-orphans", "-t", "5"], 120_000, name);
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function api<T>(pathname: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await fetch(`${webUrl}${pathname}`, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: (await response.json()) as T };
}

type CellDto = {
  serverName: string;
  params: { tool: string };
  status: string;
  driver: string;
  image: string | null;
  imageId: string | null;
  limits: { cpus: number; memoryMb: number } | null;
  error: string | null;
  logTail: string | null;
  summary: { ops: number; errors: number; requests: number; opsRps: number; latency: { p99: number } } | null;
};
type RunDto = { run: { id: string; status: string; cellsDone: number }; cells: CellDto[] };

/** POST /api/v1/matrices, then GET /api/v1/runs/<id> until the run ends. */
/** The stack's web runs with PERFLAB_ACCESS=token: the token its own machine made (beforeAll). */
let token = "";

async function runMatrix(spec: object, timeoutMs: number): Promise<RunDto> {
  const created = await api<{ runId: string; cells: unknown[] }>("/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(spec),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const deadline = Date.now() + timeoutMs;
  let last: RunDto | null = null;
  while (Date.now() < deadline) {
    const got = await api<RunDto>(`/api/v1/runs/${created.body.runId}`).catch(() => null);
    if (got?.status === 200) {
      last = got.body;
      if (["succeeded", "failed", "partial", "cancelled"].includes(last.run.status)) return last;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(
    `run ${created.body.runId} did not finish within ${timeoutMs} ms: ${JSON.stringify(last)}\n${await logs("worker")}`,
  );
}

const cellSpec = (tools: { tool: string; arguments: object }[], driver: DriverId) => ({
  name: `compose test (${driver})`,
  servers: ["go"],
  scenarios: tools.map((params) => ({ id: "mcp-tool-call", params })),
  loadLevels: [{ vus: 2 }],
  durationSec: 3,
  warmupSec: 1,
  cooldownSec: 0,
  driver,
});

function expectMeasured(cell: CellDto, logTail: string) {
  expect(cell.error, `${cell.params.tool}: ${cell.error}\n${cell.logTail ?? ""}\n${logTail}`).toBeNull();
  expect(cell.status).toBe("succeeded");
  expect(cell.summary).not.toBeNull();
  expect(cell.summary!.ops).toBeGreaterThan(0);
  expect(cell.summary!.errors).toBe(0);
  expect(cell.summary!.opsRps).toBeGreaterThan(0);
  expect(cell.summary!.latency.p99).toBeGreaterThan(0);
}

describe.each(implementations)(
  "docker-compose.yml under $label: the shared-lab deployment runs cells end to end",
  (implementation) => {
    beforeAll(async () => {
      composeCommand = implementation.command;
      project = `${PREFIX}${process.pid}-${implementation.name}`;
      const version = spawnSync(composeCommand, ["version", "--short"], { encoding: "utf8" });
      if (version.status !== 0) {
        throw new Error(`${implementation.label} is missing: ${implementation.missing}`);
      }
      console.log(`${implementation.label}: ${version.stdout.trim()}`);
      const images = [
        "perflab/app:local",
        "perflab/postgres:15",
        "perflab/redis:7",
        "perflab/fixtures:latest",
        await serverImageTag(go),
      ];
      const missing = images.filter(
        (image) => spawnSync("docker", ["image", "inspect", image], { stdio: "ignore" }).status !== 0,
      );
      if (missing.length > 0) {
        throw new Error(
          `images missing: ${missing.join(", ")}; build them with scripts/docker/build-images.sh --apps go fixtures`,
        );
      }
      await removeStaleStacks();

      const [web, pg, redis, fixtures] = await distinctFreePorts(4);
      webUrl = `http://127.0.0.1:${web}`;
      fixtureApiUrl = `http://127.0.0.1:${fixtures}`;
      composeEnv = {
        ...process.env,
        PERFLAB_WEB_PORT: String(web),
        PERFLAB_WEB_HOST: "127.0.0.1",
        PERFLAB_PG_PORT: String(pg),
        PERFLAB_REDIS_PORT: String(redis),
        PERFLAB_FIXTURE_API_PORT: String(fixtures),
        PERFLAB_DB_PASSWORD: "compose-test",
        // Its own host id: its worker's lock, orphan reaping and containers never touch another worker's.
        PERFLAB_HOST_ID: project,
        LOG_LEVEL: "info",
        // A shared lab that needs tokens, its first made as docs/security.md says.
        PERFLAB_ACCESS: "token",
      };
      const started = Date.now();
      // up waits for Postgres and Redis to be healthy and for the migrations to finish.
      await compose(["up", "-d"], 240_000).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await logs()}`);
      });
      const deadline = Date.now() + 120_000;
      for (;;) {
        const ok = await fetch(`${webUrl}/api/v1/servers`, { signal: AbortSignal.timeout(5_000) })
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) break;
        if (Date.now() > deadline)
          throw new Error(`the web app did not answer at ${webUrl}\n${await logs()}`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      const refused = await api("/api/v1/matrices", { method: "POST", body: "{}" });
      expect(refused.status).toBe(401);
      token = (
        await exec(
          composeCommand,
          ["-p", project, "-f", composeFile, "exec", "-T", "web"].concat([
            "node",
            "--import",
            "tsx",
            "packages/db/src/token-cli.ts",
            "create",
            "--name",
            "compose-test",
          ]),
          { env: composeEnv, timeout: 60_000 },
        )
      ).stdout.trim();
      expect(token).toMatch(/^plab_[A-Za-z0-9_-]{43}$/);
      console.log(
        `compose stack ${project} up and web answering in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }, 420_000);

    afterAll(async () => {
      if (process.env.PERFLAB_TEST_LOGS) console.log(await logs("", 200));
      // Always, even when up failed half-way: containers, the project's volumes and nothing else.
      await compose(["down", "-v", "--remove-orphans", "-t", "10"], 180_000);
      // Server and k6 containers the stack's worker made are not the project's: remove them by owner.
      const owned = (
        await exec("docker", [
          "ps",
          "-a",
          "--filter",
          "label=perflab.owner",
          "--format",
          '{{.ID}} {{.Label "perflab.owner"}}',
        ])
      ).stdout
        .split("\n")
        .filter((line) => line.split(" ")[1]?.startsWith(`${project}:`))
        .map((line) => line.split(" ")[0]!);
      if (owned.length > 0) await exec("docker", ["rm", "-f", ...owned]);
    }, 200_000);

    it("runs local cells, a fixture tool's against the compose fixtures service", async () => {
      const result = await runMatrix(
        cellSpec(
          [
            { tool: "echo", arguments: { message: "hello" } },
            { tool: "fetch_upstream", arguments: { delay_ms: 5 } },
          ],
          "local",
        ),
        180_000,
      );
      const tail = await logs("worker");
      for (const cell of result.cells) expectMeasured(cell, tail);
      expect(result.run.status).toBe("succeeded");
      expect(result.cells.map((c) => [c.params.tool, c.driver])).toEqual([
        ["echo", "local"],
        ["fetch_upstream", "local"],
      ]);
      // The worker used the compose service rather than starting a fixture API of its own.
      const started = (await logs("worker", 500))
        .split("\n")
        .find((line) => line.includes('"msg":"fixtures started"'));
      expect(started, tail).toBeDefined();
      expect(started).toContain(`"apiUrl":"${fixtureApiUrl}"`);
      expect(started).toContain('"external":true');

      // The dashboard's pages render from the image too (server components read the same catalog and DB).
      for (const page of ["/", "/runs/new", `/runs/${result.run.id}`]) {
        const response = await fetch(`${webUrl}${page}`, { signal: AbortSignal.timeout(30_000) });
        const html = await response.text();
        expect(response.status, `${page}: ${html.slice(0, 500)}`).toBe(200);
        if (page !== "/runs/new") expect(html).toContain("compose test (local)");
        // The lab's form starts on containers (PERFLAB_DEFAULT_DRIVER=docker in the compose file).
        else expect(html).toContain("A container per cell, host network, limits applied");
      }
    }, 240_000);

    it("runs docker cells on the Go image, from the worker container through the host's engine", async () => {
      const result = await runMatrix(
        cellSpec(
          [
            { tool: "echo", arguments: { message: "hello" } },
            { tool: "search_products", arguments: { query: "lamp", limit: 10 } },
          ],
          "docker",
        ),
        180_000,
      );
      const tail = await logs("worker");
      for (const cell of result.cells) {
        expectMeasured(cell, tail);
        expect(cell.driver).toBe("docker");
        expect(cell.image).toBe(await serverImageTag(go));
        const inspected = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", cell.image!], {
          encoding: "utf8",
        });
        expect(cell.imageId).toBe(inspected.stdout.trim());
        expect(cell.limits).toMatchObject({ cpus: expect.any(Number), memoryMb: expect.any(Number) });
      }
      expect(result.run.status).toBe("succeeded");
    }, 240_000);

    it("lists every reference server, and keeps its queue in a Redis that neither evicts nor forgets", async () => {
      const body = (await (await fetch(`${webUrl}/api/v1/servers`)).json()) as {
        servers: { name: string }[];
        defaultDriver: string;
      };
      // The lab says its form's driver, which `perflab study --quick` then uses.
      expect(body.defaultDriver).toBe("docker");
      // Every server and its variants, as the form shows them.
      const expected = withVariants(loadServerCatalog(path.join(repoRoot, "servers"))).map((s) => s.name);
      expect(expected).toEqual(
        expect.arrayContaining([
          "bun",
          "go",
          "java",
          "node",
          "python",
          "rust",
          "node:cluster",
          "bun:cluster",
          "python:workers",
        ]),
      );
      expect(body.servers.map((s) => s.name).sort()).toEqual([...expected].sort());
      const redis = new Redis(Number(composeEnv.PERFLAB_REDIS_PORT), "127.0.0.1");
      try {
        expect(await redis.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
        expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
      } finally {
        redis.disconnect();
      }
    });

    it("fails a fixture cell with the variable's name when the fixtures service is down", async () => {
      await compose(["stop", "-t", "5", "fixtures"]);
      const result = await runMatrix(
        { ...cellSpec([{ tool: "fetch_upstream", arguments: { delay_ms: 5 } }], "local"), durationSec: 1 },
        120_000,
      );
      expect(result.run.status).toBe("failed");
      expect(result.cells[0]!.status).toBe("failed");
      expect(result.cells[0]!.error).toMatch(
        new RegExp(`fixture API at ${fixtureApiUrl} \\(PERFLAB_FIXTURE_API_URL\\) does not answer`),
      );
    }, 180_000);
  },
);
