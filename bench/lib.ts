/** A throwaway perflab (Postgres, Redis, worker) for benchmarks, and a way to run cells through it. */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type DriverId, JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { createDb } from "@perflab/db";
import { t95 } from "@perflab/metrics";
import { Queue } from "bullmq";
import {
  freePort,
  repoRoot,
  startPostgres,
  startRedis,
  startWeb,
  startWorker,
} from "../scripts/lib/services.ts";

export type CellRequest = {
  serverName: string;
  tool: string;
  args: Record<string, unknown>;
  vus: number;
  durationSec: number;
  warmupSec: number;
  /** Default local; docker runs the server's image under `limits`. */
  driver?: DriverId;
  limits?: { cpus?: number; memoryMb?: number };
};

/** Postgres, Redis and a worker (and with `web`, the built web app) on free ports in a temporary dir. */
export async function startLab(options: { web?: boolean } = {}) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-"));
  await chmod(tmp, 0o755);
  const redis = await startRedis({ dir: path.join(tmp, "redis"), port: await freePort() });
  const pg = await startPostgres({ dir: path.join(tmp, "pg"), port: await freePort(), durable: false });
  const worker = startWorker({
    databaseUrl: pg.url,
    redisUrl: redis.url,
    env: { PERFLAB_WORK_DIR: path.join(tmp, "work") },
  });
  const webPort = options.web ? await freePort() : 0;
  const web = options.web
    ? await startWeb({ databaseUrl: pg.url, redisUrl: redis.url, port: webPort })
    : null;
  const db = createDb(pg.url);
  const redisUrl = new URL(redis.url);
  const queue = new Queue(QUEUE_CELLS, {
    connection: { host: redisUrl.hostname, port: Number(redisUrl.port) },
  });
  const workspace = await db.workspace.create({ data: { slug: "bench", name: "bench" } });

  /**
   * Queues one run of these cells (in order, cooldown 2 s) and resolves with the finished cells.
   * `onRun` hears the run's id once it exists; its end is polled for only once `quietUntil` settles,
   * so the bench's own queries can stay out of a measured window.
   */
  async function runCells(
    cells: CellRequest[],
    options: { cooldownSec?: number; onRun?: (runId: string) => void; quietUntil?: Promise<unknown> } = {},
  ) {
    const run = await db.run.create({
      data: {
        workspaceId: workspace.id,
        source: "api",
        name: "bench",
        spec: { cooldownSec: options.cooldownSec ?? 2 },
        cellsTotal: cells.length,
        cells: {
          create: cells.map((c, index) => ({
            index,
            serverName: c.serverName,
            scenario: "mcp-tool-call",
            loadLevel: { vus: c.vus },
            params: { tool: c.tool, arguments: c.args } as never,
            durationSeconds: c.durationSec,
            warmupSeconds: c.warmupSec,
            driver: c.driver ?? "local",
            ...(c.limits ? { limits: c.limits } : {}),
          })),
        },
      },
      include: { cells: { orderBy: { index: "asc" } } },
    });
    await queue.addBulk(
      run.cells.map((c) => ({
        name: JOB_CELL_RUN,
        data: { runId: run.id, cellId: c.id },
        opts: { jobId: c.id },
      })),
    );
    options.onRun?.(run.id);
    await options.quietUntil;
    for (;;) {
      const current = await db.run.findUniqueOrThrow({ where: { id: run.id } });
      if (!["queued", "running"].includes(current.status)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    return db.cell.findMany({
      where: { runId: run.id },
      orderBy: { index: "asc" },
      include: { summary: true },
    });
  }

  return {
    db,
    worker,
    web: web ? { child: web.child, port: webPort } : null,
    runCells,
    async stop() {
      await queue.close();
      await db.$disconnect();
      await web?.stop();
      await worker.stop();
      await pg.stop();
      await redis.stop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * This process's RSS from now on, after a GC where `--expose-gc` allows one: where it began, and
 * the peak sampled every 20 ms (short spikes can slip between samples) when `stop()` is called.
 */
export function watchRss(): { before: number; stop: () => number } {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    before,
    stop: () => {
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      return peak;
    },
  };
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));

/**
 * The ratio of paired measurements (ys[i] / xs[i], each pair run back to back so slow drifts of
 * the machine cancel): geometric mean and its 95 % confidence interval from the t distribution of
 * the log ratios. Fewer than two pairs give no interval.
 */
export function pairedRatio(
  xs: number[],
  ys: number[],
): { ratio: number; low: number; high: number; n: number } {
  const logs = xs.map((x, i) => Math.log(ys[i]! / x));
  const n = logs.length;
  const m = mean(logs);
  if (n < 2) return { ratio: Math.exp(m), low: Number.NaN, high: Number.NaN, n };
  const s = Math.sqrt(logs.reduce((a, l) => a + (l - m) ** 2, 0) / (n - 1));
  const half = t95(n - 1) * (s / Math.sqrt(n));
  return { ratio: Math.exp(m), low: Math.exp(m - half), high: Math.exp(m + half), n };
}

export const machine = () =>
  `${os.cpus()[0]?.model}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}`;

/**
 * A bare `k6 run` of the echo scenario: measured RPS and tools/call p99. With `perflabOutput`, k6
 * also writes perflab's output into a named pipe that this process drains the way the worker does
 * (a read stream on the FIFO), without the rest of perflab: the output path's cost on its own.
 */
export async function bareK6Echo(input: {
  target: string;
  vus: number;
  durationSec: number;
  warmupSec: number;
  summaryPath: string;
  perflabOutput?: boolean;
}): Promise<{ rps: number; p99: number }> {
  const { execFile } = await import("node:child_process");
  const { createReadStream } = await import("node:fs");
  const { promisify } = await import("node:util");
  const { readFile } = await import("node:fs/promises");
  const out: string[] = [];
  let drained: Promise<void> = Promise.resolve();
  if (input.perflabOutput) {
    const fifo = `${input.summaryPath}.fifo`;
    await rm(fifo, { force: true });
    await promisify(execFile)("mkfifo", ["-m", "600", fifo]);
    out.push("--out", `perflab=${fifo}`);
    drained = new Promise<void>((resolve, reject) => {
      createReadStream(fifo)
        .on("data", () => undefined)
        .on("end", resolve)
        .on("error", reject);
    }).finally(() => rm(fifo, { force: true }));
  }
  await promisify(execFile)(
    path.join(repoRoot, ".perflab/bin/k6"),
    [
      "run",
      "--no-usage-report",
      "--quiet",
      "--address",
      "127.0.0.1:0",
      ...out,
      path.join(repoRoot, "packages/scenarios/k6/mcp-tool-call.js"),
    ],
    {
      env: {
        PATH: process.env.PATH,
        TARGET: input.target,
        VUS: String(input.vus),
        DURATION: String(input.durationSec),
        WARMUP: String(input.warmupSec),
        TOOL: "echo",
        ARGS: JSON.stringify({ message: "hello" }),
        SUMMARY_PATH: input.summaryPath,
      },
    },
  );
  await drained;
  const metrics = JSON.parse(await readFile(input.summaryPath, "utf8")).metrics;
  return {
    rps: metrics["http_reqs{phase:measure}"].values.count / input.durationSec,
    p99: metrics["http_req_duration{phase:measure,method:tools/call}"].values["p(99)"],
  };
}
