import { mkdir, mkdtemp, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { JOB_CELL_RUN, QUEUE_CELLS } from "@perflab/contracts";
import { createDb } from "@perflab/db";
import { Queue } from "bullmq";
import { freePort, repoRoot, startPostgres, startRedis, startWorker } from "../../scripts/lib/services.ts";

const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-scratch-"));
await (await import("node:fs/promises")).chmod(tmp, 0o755);
const log = (l: string) => console.log(l);
const redis = await startRedis({ dir: path.join(tmp, "redis"), port: await freePort() });
const pg = await startPostgres({ dir: path.join(tmp, "pg"), port: await freePort(), durable: false });
const worker = startWorker({ databaseUrl: pg.url, redisUrl: redis.url, log });
const db = createDb(pg.url);
const ws = await db.workspace.create({ data: { slug: "x", name: "x" } });
const run = await db.run.create({
  data: {
    workspaceId: ws.id,
    source: "api",
    name: "s",
    spec: {},
    cellsTotal: 1,
    cells: {
      create: [
        {
          index: 0,
          serverName: "go",
          scenario: "mcp-tool-call",
          loadLevel: { vus: 4 },
          params: { tool: "echo", arguments: { message: "hi" } },
          durationSeconds: 5,
          warmupSeconds: 2,
          driver: "local",
        },
      ],
    },
  },
  include: { cells: true },
});
const u = new URL(redis.url);
const q = new Queue(QUEUE_CELLS, { connection: { host: u.hostname, port: Number(u.port) } });
await q.add(JOB_CELL_RUN, { runId: run.id, cellId: run.cells[0]!.id }, { jobId: run.cells[0]!.id });
for (let i = 0; i < 60; i++) {
  const r = await db.run.findUniqueOrThrow({ where: { id: run.id } });
  if (!["queued", "running"].includes(r.status)) break;
  await new Promise((res) => setTimeout(res, 1000));
}
const cell = await db.cell.findFirstOrThrow({ include: { summary: true } });
console.log(
  JSON.stringify(
    cell,
    (k, v) => (typeof v === "bigint" ? Number(v) : k === "histogram" || k === "logTail" ? undefined : v),
    1,
  ),
);
const pts = await db.metricPoint.findMany({ orderBy: { t: "asc" } });
for (const p of pts)
  console.log(
    p.second,
    p.phase,
    p.requests,
    p.latencyP99Ms,
    p.cpuPct?.toFixed(1),
    p.k6CpuPct?.toFixed(1),
    p.rssBytes,
  );
await q.close();
await db.$disconnect();
await worker.stop();
await pg.stop();
await redis.stop();
