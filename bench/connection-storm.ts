/**
 * How many open SSE streams a server holds, and what each costs: perflab's k6 runs
 * k6/connection-storm.js (levels one after the other, each held, then closed) against each reference
 * server started as the local driver starts it, while this reads the server's and k6's RSS and
 * open descriptors from /proc every 500 ms. Per level: streams established, failed, dropped, time to
 * establish and to the first event (p50/p99), the server's RSS and descriptors, RSS per stream, and
 * k6's own RSS per stream (what the load generator pays). Traffic goes only to 127.0.0.1.
 *
 *   pnpm --filter @perflab/bench connection-storm [servers=go,node,express:legacy-sse] [levels=10,100,1000,10000] [holdSec=20] [rate=100]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadServerCatalog, withVariants } from "@perflab/catalog";
import { levelFootprints, type ProcessReading, type StormSummary, stormFigures } from "@perflab/metrics";
import { localDriver, waitForHealthy } from "@perflab/worker/testing";
import { stormMinDuration } from "../packages/scenarios/k6/storm-plan.js";
import { freePort, repoRoot } from "../scripts/lib/services.ts";
import { machine } from "./lib.ts";

const [servers = "go,node", levels = "10,100,1000,10000", holdSec = "20", rate = "100"] =
  process.argv.slice(2);
const MARKER = "PERFLAB_STORM_BENCH";
const GAP_SEC = 5;
// The levels share the duration: each ramps (its streams at the rate), is held holdSec, closes.
const levelList = levels.split(",").map(Number);
const durationSec =
  stormMinDuration({ levels: levelList, rate: Number(rate), ramp: 0, gap: GAP_SEC }) +
  levelList.length * (Number(holdSec) - 1);
// A `legacy-sse` variant (express:legacy-sse, go-mcp-go:legacy-sse) is stormed on its /sse stream.
const catalog = withVariants(loadServerCatalog(path.join(repoRoot, "servers")));

async function readProcess(pid: number): Promise<ProcessReading | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (!kb) return null;
  const fds = (await readdir(`/proc/${pid}/fd`).catch(() => [])).length;
  return { atMs: Date.now(), rssBytes: Number(kb) * 1024, fds };
}

/** A process's CPU seconds so far (utime + stime of /proc/<pid>/stat, at 100 ticks a second). */
async function cpuSeconds(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return stat ? (Number(fields[11]) + Number(fields[12])) / 100 : null;
}

function watch(pid: () => number | undefined) {
  const readings: ProcessReading[] = [];
  let cpu = 0;
  const timer = setInterval(async () => {
    const id = pid();
    const reading = id === undefined ? null : await readProcess(id);
    if (reading) readings.push(reading);
    if (id !== undefined) cpu = (await cpuSeconds(id)) ?? cpu;
  }, 500);
  return { readings, cpu: () => cpu, stop: () => clearInterval(timer) };
}

/** The server's own process: the one started with this run's marker (the driver's wrapper execs it). */
async function markedPid(name: string): Promise<number> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (environ.split("\0").includes(`${MARKER}=${name}`)) return Number(entry);
  }
  throw new Error(`no process of ${name}`);
}

function runK6(env: Record<string, string>) {
  const child = spawn(
    path.join(repoRoot, ".perflab/bin/k6"),
    ["run", "--no-usage-report", "--quiet", "packages/scenarios/k6/connection-storm.js"],
    { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), ...env }, stdio: "inherit" },
  );
  const done = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { pid: child.pid, done };
}

async function stormOn(name: string) {
  const server = catalog.find((s) => s.name === name);
  if (!server) throw new Error(`no server ${name}`);
  const port = await freePort();
  const running = await localDriver.start({ server, cellId: `storm-${name}`, port, env: { [MARKER]: name } });
  try {
    await waitForHealthy({
      baseUrl: `http://127.0.0.1:${port}`,
      mcpPath: server.mcpPath,
      timeoutMs: 60_000,
      exited: running.exited,
    });
    const serverPid = await markedPid(name);
    const summaryPath = path.join(await mkdtemp(path.join(os.tmpdir(), "storm-")), "summary.json");
    let k6Pid: number | undefined;
    const [serverWatch, k6Watch] = [watch(() => serverPid), watch(() => k6Pid)];
    const k6 = runK6({
      TARGET: `http://127.0.0.1:${port}`,
      MCP_PATH: server.mcpPath,
      STREAM: server.variant === "legacy-sse" ? "legacy-sse" : "streamable",
      LEVELS: levels,
      RATE: rate,
      MAX_VUS: "50",
      DURATION: String(durationSec),
      WARMUP: "5",
      GAP: String(GAP_SEC),
      SUMMARY_PATH: summaryPath,
    });
    k6Pid = k6.pid;
    const started = Date.now();
    const serverCpuBefore = (await cpuSeconds(serverPid)) ?? 0;
    const code = await k6.done;
    // The CPU each used while the storm ran, in cores (2 = this machine's both).
    const seconds = (Date.now() - started) / 1000;
    const cores = { server: (serverWatch.cpu() - serverCpuBefore) / seconds, k6: k6Watch.cpu() / seconds };
    serverWatch.stop();
    k6Watch.stop();
    if (code !== 0) throw new Error(`k6 exited ${code}`);
    const summary = JSON.parse(await readFile(summaryPath, "utf8")) as StormSummary;
    // The server's figures as a storm cell's summary has them; k6's own by the same definition.
    const figures = stormFigures(summary, serverWatch.readings)!;
    return {
      server: name,
      cores,
      idle: figures.idle,
      levels: figures.levels,
      // k6's idle: its readings before the first level, once its VUs are up.
      k6: levelFootprints(summary, k6Watch.readings, figures.levels),
    };
  } finally {
    await running.stop(5_000);
  }
}

const MB = 1e6;
const fmt = (v: number | null | undefined, digits = 0) =>
  v === null || v === undefined ? "–" : v.toFixed(digits);
const results = [];
console.log(
  `${machine()}; ${new Date().toISOString()}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const name of servers.split(",")) {
  const result = await stormOn(name);
  results.push(result);
  console.log(
    `\n${name}: idle RSS ${fmt((result.idle?.rssBytes ?? 0) / MB, 1)} MB, ${result.idle?.fds} fds; k6 idle ${fmt((result.k6.idle?.rssBytes ?? 0) / MB, 1)} MB; cores used: server ${fmt(result.cores.server, 2)}, k6 ${fmt(result.cores.k6, 2)}`,
  );
  console.log(
    "| streams | established | failed | dropped | establish p50/p99 ms | first event p50/p99 ms | server RSS MB | server fds | RSS/stream KB | k6 RSS/stream KB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  result.levels.forEach((s, i) => {
    const k = result.k6.levels[i]!;
    console.log(
      `| ${s.level} | ${s.established} | ${s.failed} | ${s.dropped} | ${fmt(s.establishMs?.p50)} / ${fmt(s.establishMs?.p99)} | ${fmt(s.firstEventMs?.p50)} / ${fmt(s.firstEventMs?.p99)} | ${fmt((s.rssBytes ?? Number.NaN) / MB, 1)} | ${fmt(s.fds)} | ${fmt((s.rssPerStreamBytes ?? Number.NaN) / 1e3, 1)} | ${fmt((k.rssPerStreamBytes ?? Number.NaN) / 1e3, 1)} |`,
    );
  });
}
const out = path.join(os.tmpdir(), "connection-storm.json");
await writeFile(out, JSON.stringify({ machine: machine(), at: new Date().toISOString(), results }, null, 2));
console.log(
  `\nwritten to ${out}; load average now ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
