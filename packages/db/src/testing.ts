import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLatencyHistogram, encodeHistogram, latencyStats } from "@perflab/metrics";
import { findFreePort, startEmbeddedPostgres } from "./embedded-postgres.ts";
import type { Db } from "./index.ts";
import { migrate } from "./migrate.ts";

export interface TestPostgres {
  url: string;
  stop: () => Promise<void>;
}

export interface StartTestPostgresOptions {
  /** Apply prisma/migrations before returning. */
  migrate?: boolean;
}

/**
 * A throwaway Postgres for integration tests: fresh cluster in a temp dir on a free port,
 * removed again by `stop()`. Takes a few seconds (initdb); start one per test file.
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const root = await mkdtemp(path.join(os.tmpdir(), "perflab-pg-"));
  // mkdtemp creates 0700; the cluster may run as the `postgres` user when tests run as root.
  await chmod(root, 0o755);
  const dataDir = path.join(root, "data");
  const removeRoot = () => rm(root, { recursive: true, force: true });

  let lastError: unknown;
  // Another process can take the probed port before Postgres binds it; try a few ports.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const port = await findFreePort();
      const server = await startEmbeddedPostgres({ dataDir, port, database: "perflab_test", durable: false });
      try {
        if (options.migrate) await migrate(server.url);
      } catch (error) {
        await server.stop();
        await removeRoot();
        throw error;
      }
      return {
        url: server.url,
        stop: async () => {
          await server.stop();
          await removeRoot();
        },
      };
    } catch (error) {
      lastError = error;
      if (!String(error).includes("could not bind") && !String(error).includes("already in use")) break;
    }
  }
  await removeRoot();
  throw lastError;
}

/**
 * A run with one cell and `count` stored seconds (0 to count − 1, the first 10 warm-up), each with
 * its own histogram of 50 latencies growing with the second, every seventh second with a slow tail.
 */
export async function createCellWithSeconds(
  db: Db,
  count: number,
): Promise<{ cellId: string; histograms: string[] }> {
  const workspace = await db.workspace.upsert({
    where: { slug: "rollups" },
    update: {},
    create: { slug: "rollups", name: "rollups" },
  });
  const run = await db.run.create({
    data: { workspaceId: workspace.id, source: "api", name: "rollups", spec: {}, cellsTotal: 1 },
  });
  const cell = await db.cell.create({
    data: {
      runId: run.id,
      index: 0,
      serverName: "go",
      scenario: "mcp-tool-call",
      loadLevel: { vus: 1 },
      params: {},
      durationSeconds: count,
      warmupSeconds: 0,
      driver: "local",
    },
  });
  const histograms: string[] = [];
  const rows = Array.from({ length: count }, (_, s) => {
    const h = createLatencyHistogram();
    for (let i = 0; i < 50; i++) h.recordValue(1_000 + s * 10 + i * (s % 7 === 0 ? 400 : 3));
    const stats = latencyStats(h);
    histograms.push(encodeHistogram(h));
    return {
      cellId: cell.id,
      t: new Date(1_700_000_000_000 + s * 1000),
      second: s,
      phase: s < 10 ? ("warmup" as const) : ("measure" as const),
      requests: 50,
      errors: 0,
      ops: 25,
      rps: 50,
      latencyP50Ms: stats.p50,
      latencyP99Ms: stats.p99,
      cpuPct: 40,
      rssBytes: BigInt(10_000 + s),
      histogram: histograms[s]!,
    };
  });
  await db.metricPoint.createMany({ data: rows });
  return { cellId: cell.id, histograms };
}
