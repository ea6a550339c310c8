/**
 * What the sampler's once-a-second `/debug/runtime` request costs the server it measures: the
 * server's CPU seconds (from /proc) over `calls` requests to an otherwise idle server, per request,
 * beside the same number of `GET /health`, so the HTTP round trip itself is told apart.
 *
 *   pnpm exec tsx bench/runtime-probe-cost.ts [calls=2000] [server=go]
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { freePort, repoRoot, waitForPort } from "../scripts/lib/services.ts";
import { machine } from "./lib.ts";
import { procCounters } from "./procs.ts";

const [callsArg = "2000", serverName = "go"] = process.argv.slice(2);
const calls = Number(callsArg);

const port = await freePort();
const server = spawn(path.join(repoRoot, `servers/${serverName}/bin/server`), [], {
  env: { PORT: String(port) },
  stdio: "ignore",
});

/** The server's CPU µs per request over `calls` sequential requests of `pathname`. */
async function perRequest(pathname: string): Promise<number> {
  const before = procCounters(server.pid!)!.cpuSeconds;
  for (let i = 0; i < calls; i++) {
    const res = await fetch(`http://127.0.0.1:${port}${pathname}`);
    await res.arrayBuffer();
  }
  return ((procCounters(server.pid!)!.cpuSeconds - before) / calls) * 1e6;
}

try {
  await waitForPort(port, 10_000);
  await perRequest("/debug/runtime");
  const rows: string[] = [];
  for (let round = 0; round < 3; round++) {
    const runtime = await perRequest("/debug/runtime");
    const health = await perRequest("/health");
    rows.push(`round ${round + 1}: /debug/runtime ${runtime.toFixed(0)} µs, /health ${health.toFixed(0)} µs`);
  }
  console.log(`machine: ${machine()}; ${serverName} server, ${calls} sequential requests each`);
  for (const row of rows) console.log(row);
  console.log("once a second, 100 µs is 0.01 % of one core");
} finally {
  server.kill("SIGTERM");
}
