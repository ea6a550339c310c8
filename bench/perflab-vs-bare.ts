/**
 * Does perflab's observation path distort what it measures? Each round runs three arms against a
 * fresh Go server, in an order that rotates through all six permutations (so a drift of the machine,
 * or a cost of going first or last, falls on every arm alike):
 *   bare     a plain `k6 run` of the scenario;
 *   output   the same plus perflab's k6 output into a FIFO drained by this process (the output
 *            path alone, without worker, sampler, Postgres or Redis);
 *   perflab  the same cell through perflab (worker, output, 1 Hz sampler, Postgres, Redis).
 * Prints RPS and tools/call p99 of each, paired ratios to bare, and the worker's own CPU.
 *
 *   pnpm exec tsx bench/perflab-vs-bare.ts [rounds=5] [durationSec=10] [vus=10]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, repoRoot, waitForPort } from "../scripts/lib/services.ts";
import { bareK6Echo, machine, mean, pairedRatio, sd, startLab } from "./lib.ts";

const [rounds = 5, durationSec = 10, vus = 10] = process.argv.slice(2).map(Number);
const warmupSec = 2;
const serverBin = path.join(repoRoot, "servers/go/bin/server");

const fmt = (xs: number[], digits = 1) => `${mean(xs).toFixed(digits)} ± ${sd(xs).toFixed(digits)}`;

async function cpuSeconds(pid: number): Promise<number> {
  const rest = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

async function bare(tmp: string, perflabOutput: boolean): Promise<{ rps: number; p99: number }> {
  const port = await freePort();
  const server = spawn(serverBin, [], { env: { PORT: String(port) }, stdio: "ignore" });
  try {
    await waitForPort(port, 10_000);
    const summaryPath = path.join(tmp, "bare-summary.json");
    const measured = await bareK6Echo({
      target: `http://127.0.0.1:${port}`,
      vus,
      durationSec,
      warmupSec,
      summaryPath,
      perflabOutput,
    });
    return measured;
  } finally {
    server.kill("SIGTERM");
  }
}

const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-bare-"));
const lab = await startLab();

/** Worker CPU over the steady part of the measured window (the per-cell setup is a one-off cost). */
async function workerCpuDuringLoad(): Promise<number> {
  const deadline = Date.now() + (warmupSec + durationSec + 120) * 1000;
  while (Date.now() < deadline) {
    const cell = await lab.db.cell.findFirst({
      where: { status: "running", measureStartedAt: { not: null } },
    });
    if (cell?.measureStartedAt && cell.measureEndedAt) {
      const from = cell.measureStartedAt.getTime() + 2_000;
      const to = cell.measureEndedAt.getTime() - 1_000;
      await new Promise((r) => setTimeout(r, Math.max(0, from - Date.now())));
      const c0 = await cpuSeconds(lab.worker.child.pid!);
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, Math.max(0, to - Date.now())));
      return (((await cpuSeconds(lab.worker.child.pid!)) - c0) / ((Date.now() - t0) / 1000)) * 100;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return Number.NaN;
}

async function viaPerflab(): Promise<{ rps: number; p99: number; workerCpuPct: number }> {
  const cpu = workerCpuDuringLoad();
  const [cell] = await lab.runCells(
    [{ serverName: "go", tool: "echo", args: { message: "hello" }, vus, durationSec, warmupSec }],
    { cooldownSec: 0 },
  );
  if (!cell?.summary) throw new Error(`cell failed: ${cell?.error}`);
  const op = (cell.summary.byOperation as { method: string; p99: number }[]).find(
    (o) => o.method === "tools/call",
  );
  return { rps: cell.summary.httpRps, p99: op!.p99, workerCpuPct: await cpu };
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
const results: Record<Arm, { rps: number; p99: number; workerCpuPct?: number }[]> = {
  bare: [],
  output: [],
  perflab: [],
};
try {
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < rounds; i++) {
    const order = ORDERS[i % ORDERS.length]!;
    for (const arm of order) {
      results[arm].push(arm === "perflab" ? await viaPerflab() : await bare(tmp, arm === "output"));
    }
    const line = order
      .map((arm) => {
        const r = results[arm].at(-1)!;
        const cpu = r.workerCpuPct === undefined ? "" : `, worker CPU ${r.workerCpuPct.toFixed(1)} %`;
        return `${arm} ${r.rps.toFixed(0)} rps p99 ${r.p99.toFixed(2)} ms${cpu}`;
      })
      .join(" | ");
    console.log(`round ${i + 1}: ${line}`);
  }
  console.log(`\nmachine: ${machine()}`);
  console.log(
    `scenario: mcp-tool-call echo, ${vus} VUs, ${warmupSec} s warm-up + ${durationSec} s, Go server, ${rounds} rounds of three arms in rotating order`,
  );
  for (const arm of ["bare", "output", "perflab"] as const) {
    console.log(
      `${arm.padEnd(8)} RPS ${fmt(
        results[arm].map((r) => r.rps),
        0,
      )}   tools/call p99 ${fmt(
        results[arm].map((r) => r.p99),
        2,
      )} ms`,
    );
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
  console.log(
    `worker CPU during the measured window: ${fmt(results.perflab.map((r) => r.workerCpuPct ?? Number.NaN))} % of one core`,
  );
} finally {
  await lab.stop();
  await rm(tmp, { recursive: true, force: true });
}
