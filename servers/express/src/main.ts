// perflab's Express reference MCP server (servers/CONTRACT.md): the official TypeScript SDK on
// Express, as the studies ran Node, with the tools of servers/node.
import cluster from "node:cluster";
import { cpuLimit } from "@perflab/server-node/dist/cpu-limit.js";
import { type AppConfig, startApp } from "./app.js";

function fail(reason: string): never {
  console.error(`fatal: ${reason}`);
  process.exit(1);
}

function flag(name: string): boolean {
  const v = process.env[name] ?? "";
  if (v !== "" && v !== "0" && v !== "1") fail(`${name} must be 0 or 1, got ${JSON.stringify(v)}`);
  return v === "1";
}

function loadConfig(): AppConfig {
  const rawPort = process.env.PORT || "8080";
  const port = Number(rawPort);
  if (!/^[0-9]+$/.test(rawPort) || port < 1 || port > 65535) fail(`PORT must be 1..65535, got "${rawPort}"`);
  const stateless = flag("MCP_STATELESS");
  const jsonResponse = flag("MCP_JSON_RESPONSE");
  const legacySse = flag("MCP_LEGACY_SSE");
  // WEB_CONCURRENCY is the worker count Node hosts (Heroku, Render) set; "auto" follows the CPU limit.
  const rawWorkers = process.env.WEB_CONCURRENCY || "1";
  const parallelism = rawWorkers === "auto" ? cpuLimit() : Number(rawWorkers);
  if (!/^([0-9]+|auto)$/.test(rawWorkers) || !Number.isInteger(parallelism) || parallelism < 1) {
    fail(`WEB_CONCURRENCY must be a positive integer or "auto", got "${rawWorkers}"`);
  }
  // Sessions live in one process's memory: a second process would answer 404 to half of them.
  if (parallelism > 1 && !stateless) fail("WEB_CONCURRENCY > 1 requires MCP_STATELESS=1");
  // An SSE session is its GET stream: there is no stateless form of the legacy transport.
  if (legacySse && stateless) fail("MCP_LEGACY_SSE=1 requires stateful mode (MCP_STATELESS unset or 0)");
  return { port, stateless, jsonResponse, legacySse, parallelism };
}

const startLine = (c: AppConfig, port: number) =>
  `perflab express server listening on http://127.0.0.1:${port} ` +
  `(stateless=${c.stateless} json_response=${c.jsonResponse} legacy_sse=${c.legacySse} workers=${c.parallelism})`;

/** Runs stop once; later signals (the process group and the primary both send one) are ignored. */
function onStopSignal(stop: () => void) {
  let stopped = false;
  const handler = () => {
    if (stopped) return;
    stopped = true;
    stop();
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}

async function runServer(config: AppConfig): Promise<void> {
  const starting = startApp(config);
  // The handler goes in before the start line: a SIGTERM sent the moment the line is read must be
  // a graceful stop, not the default action (exit by signal). A signal during startup waits for it.
  onStopSignal(() =>
    starting.then(
      async (app) => {
        await app.close();
        process.exit(0);
      },
      () => process.exit(1),
    ),
  );
  const app = await starting;
  if (cluster.isPrimary) console.log(startLine(config, app.port));
}

/** Stateless workers share the listening socket through node:cluster; the primary serves nothing. */
function runPrimary(config: AppConfig): void {
  let listening = 0;
  let stopping = false;
  const stopAll = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
  };
  onStopSignal(stopAll);
  for (let i = 0; i < config.parallelism; i++) cluster.fork();
  cluster.on("listening", () => {
    if (++listening === config.parallelism) console.log(startLine(config, config.port));
  });
  cluster.on("exit", (worker, code, signal) => {
    // Exit code 0 is a worker's graceful stop (the signal may reach workers before the primary):
    // stop the others too. A crash fails the whole server: no cell runs on fewer workers.
    if (code !== 0 && !stopping) fail(`worker ${worker.process.pid} exited (code ${code}, signal ${signal})`);
    if (!stopping) stopAll();
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
}

const config = loadConfig();
if (config.parallelism > 1 && cluster.isPrimary) runPrimary(config);
else await runServer(config);
