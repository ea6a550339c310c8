/**
 * Does perflab's observation path distort what it measures? Alternates (ABBA), N times each, a bare
 * `k6 run` of the scenario against the Go server with the same cell run through perflab (worker,
 * perflab k6 output, 1 Hz sampler, Postgres, Redis), and prints RPS and tools/call p99 of both,
 * their ratio, and the worker's own CPU while a cell runs.
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

async function bare(tmp: string): Promise<{ rps: number; p99: number }> {
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
    });
    return {
      ...measured,
    };
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

const results = {
  bare: [] as { rps: number; p99: number }[],
  perflab: [] as { rps: number; p99: number; workerCpuPct: number }[],
};
try {
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < rounds; i++) {
    // ABBA order: bare first in even rounds, perflab first in odd ones, so a drift of the machine
    // over a pair (or a cost of going second) falls on both arms alike.
    if (i % 2 === 0) {
      results.bare.push(await bare(tmp));
      results.perflab.push(await viaPerflab());
    } else {
      results.perflab.push(await viaPerflab());
      results.bare.push(await bare(tmp));
    }
    const b = results.bare.at(-1)!;
    const p = results.perflab.at(-1)!;
    console.log(
      `round ${i + 1}${i % 2 ? " (perflab first)" : ""}: bare ${b.rps.toFixed(0)} rps p99 ${b.p99.toFixed(2)} ms | perflab ${p.rps.toFixed(0)} rps p99 ${p.p99.toFixed(2)} ms, worker CPU ${p.workerCpuPct.toFixed(1)} %`,
    );
  }
  const bareRps = results.bare.map((r) => r.rps);
  const perflabRps = results.perflab.map((r) => r.rps);
  console.log(`\nmachine: ${machine()}`);
  console.log(
    `scenario: mcp-tool-call echo, ${vus} VUs, ${warmupSec} s warm-up + ${durationSec} s, Go server, ${rounds} alternating rounds`,
  );
  console.log(
    `bare k6      RPS ${fmt(bareRps, 0)}   tools/call p99 ${fmt(
      results.bare.map((r) => r.p99),
      2,
    )} ms`,
  );
  console.log(
    `perflab      RPS ${fmt(perflabRps, 0)}   tools/call p99 ${fmt(
      results.perflab.map((r) => r.p99),
      2,
    )} ms`,
  );
  console.log(`RPS ratio perflab / bare (of the means): ${(mean(perflabRps) / mean(bareRps)).toFixed(3)}`);
  const paired = pairedRatio(bareRps, perflabRps);
  console.log(
    `RPS ratio perflab / bare, paired by round: ${paired.ratio.toFixed(3)} (95 % CI ${paired.low.toFixed(3)}–${paired.high.toFixed(3)}, ${paired.n} pairs)`,
  );
  const p99 = pairedRatio(
    results.bare.map((r) => r.p99),
    results.perflab.map((r) => r.p99),
  );
  console.log(
    `tools/call p99 ratio perflab / bare, paired: ${p99.ratio.toFixed(3)} (95 % CI ${p99.low.toFixed(3)}–${p99.high.toFixed(3)})`,
  );
  console.log(
    `worker CPU during the measured window: ${fmt(results.perflab.map((r) => r.workerCpuPct))} % of one core`,
  );
} finally {
  await lab.stop();
  await rm(tmp, { recursive: true, force: true });
}
