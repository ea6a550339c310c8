/**
 * Does perflab's observation path distort what it measures? Each round runs three arms against a
 * fresh Go server, in an order that rotates through all six permutations (so a drift of the machine,
 * or a cost of going first or last, falls on every arm alike):
 *   bare     a plain `k6 run` of the scenario;
 *   output   the same plus perflab's k6 output into a FIFO drained by this process (the output
 *            path alone, without worker, sampler, Postgres or Redis);
 *   perflab  the same cell through perflab (worker, output, 1 Hz sampler, Postgres, Redis).
 * Prints RPS and tools/call p99 of each, paired ratios to bare, and what every process cost during
 * each measured window (window-cost.ts): CPU seconds and wake-ups of the worker, Postgres, Redis,
 * the web app, k6 and the server. Those hold on a loaded machine; the ratios need a quiet one.
 * With --web the built web app runs too, with one viewer on each run's live events.
 *
 *   pnpm exec tsx bench/perflab-vs-bare.ts [rounds=5] [durationSec=10] [vus=10] [--web]
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { freePort, repoRoot, waitForPort } from "../scripts/lib/services.ts";
import { bareK6Echo, machine, mean, pairedRatio, sd, startLab } from "./lib.ts";
import { costOver, costTable, hostBusy, type LabPids, sumCosts } from "./window-cost.ts";

const args = process.argv.slice(2);
const withWeb = args.includes("--web");
const [rounds = 5, durationSec = 10, vus = 10] = args.filter((a) => !a.startsWith("--")).map(Number);
const warmupSec = 2;
const serverBin = path.join(repoRoot, "servers/go/bin/server");

const fmt = (xs: number[], digits = 1) => `${mean(xs).toFixed(digits)} ± ${sd(xs).toFixed(digits)}`;

type Window = Awaited<ReturnType<typeof costOver>>;
type Measured = { rps: number; p99: number; window: Window; hostBusy: number };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-bare-"));
const lab = await startLab({ web: withWeb });
const pids: LabPids = { worker: lab.worker.child.pid!, ...(lab.web ? { web: lab.web.child.pid! } : {}) };

/** The steady part of a measured window (its first 2 s and last 1 s are left out): the cost in it. */
async function windowFrom(measureStartMs: number): Promise<Window & { hostBusy: number }> {
  await sleep(measureStartMs + 2_000 - Date.now());
  const busy = hostBusy();
  const window = await costOver(pids, sleep(measureStartMs + durationSec * 1000 - 1_000 - Date.now()));
  return { ...window, hostBusy: busy() };
}

async function bare(perflabOutput: boolean): Promise<Measured> {
  const port = await freePort();
  const server = spawn(serverBin, [], { env: { PORT: String(port) }, stdio: "ignore" });
  try {
    await waitForPort(port, 10_000);
    // k6 initialises its VUs in well under a second here: the window follows its start closely enough.
    const window = windowFrom(Date.now() + warmupSec * 1000 + 500);
    const measured = await bareK6Echo({
      target: `http://127.0.0.1:${port}`,
      vus,
      durationSec,
      warmupSec,
      summaryPath: path.join(tmp, "bare-summary.json"),
      perflabOutput,
    });
    return { ...measured, ...(await window.then((w) => ({ window: w, hostBusy: w.hostBusy }))) };
  } finally {
    server.kill("SIGTERM");
  }
}

/** A browser on the run page: the run's live events, read and dropped until `closed` settles. */
function liveViewer(runId: string, closed: Promise<unknown>): void {
  if (!lab.web) return;
  const req = http.get(
    { host: "127.0.0.1", port: lab.web.port, path: `/api/v1/runs/${runId}/events` },
    (res) => res.on("data", () => undefined).on("error", () => undefined),
  );
  req.on("error", () => undefined);
  void closed.then(() => req.destroy());
}

/** The cell's window as the worker planned it, polled for during the warm-up only. */
async function perflabWindow(): Promise<Window & { hostBusy: number }> {
  const deadline = Date.now() + (warmupSec + durationSec + 120) * 1000;
  while (Date.now() < deadline) {
    const cell = await lab.db.cell.findFirst({
      where: { status: "running", measureStartedAt: { not: null } },
    });
    if (cell?.measureStartedAt) return windowFrom(cell.measureStartedAt.getTime());
    await sleep(100);
  }
  throw new Error("no cell reached its measured window");
}

async function viaPerflab(): Promise<Measured> {
  const window = perflabWindow();
  const [cell] = await lab.runCells(
    [{ serverName: "go", tool: "echo", args: { message: "hello" }, vus, durationSec, warmupSec }],
    { cooldownSec: 0, quietUntil: window, onRun: (runId) => liveViewer(runId, window) },
  );
  if (!cell?.summary) throw new Error(`cell failed: ${cell?.error}`);
  const op = (cell.summary.byOperation as { method: string; p99: number }[]).find(
    (o) => o.method === "tools/call",
  );
  const w = await window;
  return { rps: cell.summary.httpRps, p99: op!.p99, window: w, hostBusy: w.hostBusy };
}

type Arm = "bare" | "output" | "perflab";
const ORDERS: Arm[][] = [
  ["bare", "output", "perflab"],
  ["perflab", "output", "bare"],
  ["output", "perflab", "bare"],
  ["bare", "perflab", "output"],
  ["perflab", "bare", "output"],
  ["output", "bare", "perflab"],
];
const results: Record<Arm, Measured[]> = { bare: [], output: [], perflab: [] };
const startedAt = new Date();
try {
  // One cell nobody counts: the worker's and the web app's code paths load and compile outside a window.
  await viaPerflab();
  for (let i = 0; i < rounds; i++) {
    const order = ORDERS[i % ORDERS.length]!;
    for (const arm of order) {
      const r = arm === "perflab" ? await viaPerflab() : await bare(arm === "output");
      results[arm].push(r);
      const busy = `host busy ${(r.hostBusy * 100).toFixed(0)} %`;
      console.log(
        `\n${costTable(`round ${i + 1}, ${arm}: ${r.rps.toFixed(0)} rps, p99 ${r.p99.toFixed(2)} ms, ${busy}`, r.window)}`,
      );
    }
  }
  console.log(
    `\nmachine: ${machine()}, started ${startedAt.toISOString()}, load average ${os.loadavg().join(" ")}`,
  );
  console.log(
    `scenario: mcp-tool-call echo, ${vus} VUs, ${warmupSec} s warm-up + ${durationSec} s, Go server, ${rounds} rounds of three arms in rotating order${withWeb ? ", web app with one live viewer" : ""}`,
  );
  for (const arm of ["bare", "output", "perflab"] as const) {
    const rps = fmt(
      results[arm].map((r) => r.rps),
      0,
    );
    const p99 = fmt(
      results[arm].map((r) => r.p99),
      2,
    );
    const busy = fmt(
      results[arm].map((r) => r.hostBusy * 100),
      0,
    );
    console.log(`${arm.padEnd(8)} RPS ${rps}   tools/call p99 ${p99} ms   host busy ${busy} %`);
  }
  const ratio = (a: Arm, b: Arm, key: "rps" | "p99") => {
    const r = pairedRatio(
      results[b].map((x) => x[key]),
      results[a].map((x) => x[key]),
    );
    return `${r.ratio.toFixed(3)} (95 % CI ${r.low.toFixed(3)}–${r.high.toFixed(3)}, ${r.n} rounds)`;
  };
  console.log(`RPS ratio output / bare, paired by round:  ${ratio("output", "bare", "rps")}`);
  console.log(`RPS ratio perflab / bare, paired by round: ${ratio("perflab", "bare", "rps")}`);
  console.log(`RPS ratio perflab / output, paired:         ${ratio("perflab", "output", "rps")}`);
  console.log(`tools/call p99 ratio perflab / bare, paired: ${ratio("perflab", "bare", "p99")}`);
  for (const arm of ["perflab", "bare"] as const) {
    console.log(`\n${costTable(`all ${arm} windows`, sumCosts(results[arm].map((r) => r.window)))}`);
  }
} finally {
  await lab.stop();
  await rm(tmp, { recursive: true, force: true });
}
