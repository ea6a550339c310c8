/**
 * Does perflab's observation path distort what it measures? Alternates, N times each, a bare
 * `k6 run` of the scenario against the Go server with the same cell run through perflab (worker,
 * perflab k6 output, 1 Hz sampler, Postgres, Redis), and prints RPS and tools/call p99 of both,
 * their ratio, and the worker's own CPU while a cell runs.
 *
 *   pnpm exec tsx bench/perflab-vs-bare.ts [rounds=5] [durationSec=10] [vus=10]
 */
import { execFile, spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { createDb } from "@perflab/db";
import { Queue } from "bullmq";
import {
  freePort,
  repoRoot,
  startPostgres,
  startRedis,
  startWorker,
  waitForPort,
} from "../scripts/lib/services.ts";

const [rounds = 5, durationSec = 10, vus = 10] = process.argv.slice(2).map(Number);
const warmupSec = 2;
const k6Bin = path.join(repoRoot, ".perflab/bin/k6");
const script = path.join(repoRoot, "packages/scenarios/k6/mcp-tool-call.js");
const serverBin = path.join(repoRoot, "servers/go/bin/server");

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
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
    await promisify(execFile)(
      k6Bin,
      ["run", "--no-usage-report", "--quiet", "--address", "127.0.0.1:0", script],
      {
        env: {
          PATH: process.env.PATH,
          TARGET: `http://127.0.0.1:${port}`,
          VUS: String(vus),
          DURATION: String(durationSec),
          WARMUP: String(warmupSec),
          TOOL: "echo",
          ARGS: JSON.stringify({ message: "hello" }),
          SUMMARY_PATH: summaryPath,
        },
      },
    );
    const metrics = JSON.parse(await readFile(summaryPath, "utf8")).metrics;
    return {
      rps: metrics["http_reqs{phase:measure}"].values.count / durationSec,
      p99: metrics["http_req_duration{phase:measure,method:tools/call}"].values["p(99)"],
    };
  } finally {
    server.kill("SIGTERM");
  }
}

const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-"));
await chmod(tmp, 0o755);
const redis = await startRedis({ dir: path.join(tmp, "redis"), port: await freePort() });
const pg = await startPostgres({ dir: path.join(tmp, "pg"), port: await freePort(), durable: false });
const worker = startWorker({
  databaseUrl: pg.url,
  redisUrl: redis.url,
  env: { PERFLAB_WORK_DIR: path.join(tmp, "work") },
});
const db = createDb(pg.url);
const redisUrl = new URL(redis.url);
const queue = new Queue(QUEUE_CELLS, {
  connection: { host: redisUrl.hostname, port: Number(redisUrl.port) },
});
const workspace = await db.workspace.create({ data: { slug: "bench", name: "bench" } });

async function viaPerflab(): Promise<{ rps: number; p99: number; workerCpuPct: number }> {
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      name: "bench",
      spec: { cooldownSec: 0 },
      cellsTotal: 1,
      cells: {
        create: [
          {
            index: 0,
            serverName: "go",
            scenario: "mcp-tool-call",
            loadLevel: { vus },
            params: { tool: "echo", arguments: { message: "hello" } },
            durationSeconds: durationSec,
            warmupSeconds: warmupSec,
            driver: "local",
          },
        ],
      },
    },
    include: { cells: true },
  });
  const cellId = run.cells[0]!.id;
  const cpuBefore = await cpuSeconds(worker.child.pid!);
  const started = Date.now();
  await queue.add(JOB_CELL_RUN, { runId: run.id, cellId }, { jobId: cellId });
  for (;;) {
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellId }, include: { summary: true } });
    if (cell.status === "failed") throw new Error(`cell failed: ${cell.error}`);
    if (cell.status === "succeeded" && cell.summary) {
      const workerCpuPct =
        (((await cpuSeconds(worker.child.pid!)) - cpuBefore) / ((Date.now() - started) / 1000)) * 100;
      const op = (cell.summary.byOperation as { method: string; p99: number }[]).find(
        (o) => o.method === "tools/call",
      );
      return { rps: cell.summary.httpRps, p99: op!.p99, workerCpuPct };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const results = {
  bare: [] as { rps: number; p99: number }[],
  perflab: [] as { rps: number; p99: number; workerCpuPct: number }[],
};
try {
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < rounds; i++) {
    results.bare.push(await bare(tmp));
    results.perflab.push(await viaPerflab());
    const b = results.bare.at(-1)!;
    const p = results.perflab.at(-1)!;
    console.log(
      `round ${i + 1}: bare ${b.rps.toFixed(0)} rps p99 ${b.p99.toFixed(2)} ms | perflab ${p.rps.toFixed(0)} rps p99 ${p.p99.toFixed(2)} ms, worker CPU ${p.workerCpuPct.toFixed(1)} %`,
    );
  }
  const bareRps = results.bare.map((r) => r.rps);
  const perflabRps = results.perflab.map((r) => r.rps);
  console.log(
    `\nmachine: ${os.cpus()[0]?.model}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.release()}`,
  );
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
  console.log(`RPS ratio perflab / bare: ${(mean(perflabRps) / mean(bareRps)).toFixed(3)}`);
  console.log(`worker CPU during a cell: ${fmt(results.perflab.map((r) => r.workerCpuPct))} % of one core`);
} finally {
  await queue.close();
  await db.$disconnect();
  await worker.stop();
  await pg.stop();
  await redis.stop();
  await rm(tmp, { recursive: true, force: true });
}
