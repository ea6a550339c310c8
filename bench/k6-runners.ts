/**
 * Does running k6 in its own container (PERFLAB_K6_RUNNER=docker) change what perflab measures?
 * The Go server as a local process; k6 as the local binary and as perflab/k6 in a container,
 * alternating, same scenario, same output path. Prints throughput, tools/call p99 (k6's own summary),
 * k6's CPU per request and the per-second lines the worker received.
 * Usage: pnpm exec tsx bench/k6-runners.ts [rounds=4] [durationSec=10] [vus=10]
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { k6ImageTag, loadServerCatalog } from "@perflab/catalog";
import {
  createDockerDriver,
  createDockerK6Runner,
  createLocalK6Runner,
  type K6Runner,
  localDriver,
  waitForHealthy,
} from "@perflab/worker/testing";
import { freePort, repoRoot } from "../scripts/lib/services.ts";
import { machine, mean, sd } from "./lib.ts";

const [rounds = 4, durationSec = 10, vus = 10] = process.argv.slice(2).map(Number);
const warmupSec = 2;
const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;
type Figures = { rps: number; p99: number; cpuUsPerRequest: number; lines: number };

async function measure(runner: K6Runner, baseUrl: string, workDir: string, round: number): Promise<Figures> {
  await mkdir(workDir, { recursive: true });
  const run = await runner.run({
    script: path.join(repoRoot, "packages/scenarios/k6/mcp-tool-call.js"),
    workDir,
    env: {
      TARGET: baseUrl,
      VUS: String(vus),
      DURATION: String(durationSec),
      WARMUP: String(warmupSec),
      TOOL: "echo",
      ARGS: JSON.stringify({ message: "hello" }),
    },
    timeoutMs: (warmupSec + durationSec + 60) * 1000,
    cell: {
      id: `bench-k6-${runner.kind}-${round}`,
      runId: "bench",
      owner: `${os.hostname()}:${process.pid}`,
    },
  });
  // k6's cumulative CPU, read until it exits (the last reading before exit is its total).
  let cpuSeconds = 0;
  const sampler = setInterval(() => {
    void run.resources().then((r) => {
      if (r) cpuSeconds = Math.max(cpuSeconds, r.cpuSeconds);
    });
  }, 250);
  let lines = 0;
  for await (const _ of run.lines) lines++;
  const result = await run.done;
  clearInterval(sampler);
  if (result.exitCode !== 0)
    throw new Error(`k6 (${runner.kind}) exited ${result.exitCode}: ${result.logTail}`);
  const metrics = (result.summary as { metrics: Record<string, { values: Record<string, number> }> }).metrics;
  const all = metrics.http_reqs!.values.count!;
  return {
    rps: metrics["http_reqs{phase:measure}"]!.values.count! / durationSec,
    p99: metrics["http_req_duration{phase:measure,method:tools/call}"]!.values["p(99)"]!,
    cpuUsPerRequest: (cpuSeconds / all) * 1e6,
    lines,
  };
}

const docker = createDockerDriver();
const runners: K6Runner[] = [
  createLocalK6Runner(path.join(repoRoot, ".perflab/bin/k6")),
  createDockerK6Runner({
    docker: docker.docker,
    instance: docker.instance,
    image: await k6ImageTag(path.join(repoRoot, "packages/k6-output")),
  }),
];
for (const runner of runners) console.log(`${runner.kind.padEnd(6)} ${await runner.version()}`);
const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-k6-runners-"));
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const server = await localDriver.start({ server: go, cellId: "bench-k6-runners", port, env: {} });
const results: Record<string, Figures[]> = { local: [], docker: [] };
try {
  await waitForHealthy({ baseUrl, mcpPath: go.mcpPath, timeoutMs: 30_000, exited: server.exited });
  console.log(
    `${machine()} · ${rounds} rounds × ${durationSec}s (+${warmupSec}s warm-up) · ${vus} VUs · echo`,
  );
  for (let round = 0; round < rounds; round++) {
    // Interleaved, so drift on a shared machine hits both alike.
    for (const runner of runners) {
      const f = await measure(runner, baseUrl, path.join(tmp, `${runner.kind}-${round}`), round);
      results[runner.kind]!.push(f);
      console.log(
        `round ${round + 1} ${runner.kind.padEnd(6)} ${f.rps.toFixed(0)} req/s · p99 ${f.p99.toFixed(2)} ms · k6 ${f.cpuUsPerRequest.toFixed(0)} µs CPU/request · ${f.lines} output lines`,
      );
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
} finally {
  await server.stop(5_000);
  await rm(tmp, { recursive: true, force: true });
}
const fmt = (xs: number[], digits = 0) => `${mean(xs).toFixed(digits)} ± ${sd(xs).toFixed(digits)}`;
console.log("\n| figure | local k6 | k6 in a container | container / local |\n| --- | --- | --- | --- |");
for (const [label, key, digits] of [
  ["HTTP req/s", "rps", 0],
  ["tools/call p99 (ms)", "p99", 1],
  ["k6 CPU per request (µs)", "cpuUsPerRequest", 0],
] as const) {
  const l = results.local!.map((f) => f[key]);
  const d = results.docker!.map((f) => f[key]);
  console.log(`| ${label} | ${fmt(l, digits)} | ${fmt(d, digits)} | ${(mean(d) / mean(l)).toFixed(2)} |`);
}
