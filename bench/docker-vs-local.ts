/**
 * What does the container cost? The Go server started by the local and the docker driver in turn
 * (interleaved rounds), the same bare k6 run of `echo` against each: cold start, throughput, p99,
 * and memory read the same way under both drivers — the server process's RSS from /proc (for a
 * container, its main process as the host sees it) — idle and at its peak under load, with the
 * docker driver's own figure (cgroup usage minus inactive file pages, what `docker stats` shows) beside it.
 *
 *   pnpm --filter @perflab/bench docker-vs-local [rounds=3] [durationSec=10] [vus=10]
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadServerCatalog } from "@perflab/catalog";
import type { DriverId } from "@perflab/contracts";
import { createDockerDriver, type Driver, localDriver, waitForHealthy } from "@perflab/worker/testing";
import { freePort, repoRoot } from "../scripts/lib/services.ts";
import { bareK6Echo, machine, mean, sd } from "./lib.ts";

const [rounds = 3, durationSec = 10, vus = 10] = process.argv.slice(2).map(Number);
const warmupSec = 2;
const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;

type Figures = {
  coldStartMs: number;
  idleRssMb: number;
  peakRssMb: number;
  idleDriverMb: number;
  peakDriverMb: number;
  rps: number;
  p99: number;
};

const MB = 1024 * 1024;

async function vmRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

async function measure(driver: Driver, tmp: string, round: number): Promise<Figures> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await driver.start({ server: go, cellId: `bench-${driver.id}-${round}`, port, env: {} });
  try {
    const healthyAt = await waitForHealthy({
      baseUrl,
      mcpPath: go.mcpPath,
      timeoutMs: 30_000,
      exited: server.exited,
    });
    // The process RSS: the local driver's own reading (its process group: one Go process), and for a
    // container its main process's, read from the host's /proc like the local one.
    const containerId = (server as { containerId?: string }).containerId;
    const pid = containerId ? (await docker.docker.getContainer(containerId).inspect()).State.Pid : null;
    const processRss = async () =>
      pid ? vmRssBytes(pid) : ((await server.resources())?.rssBytes ?? Number.NaN);
    const driverRss = async (notBefore?: number) =>
      (await server.resources({ notBefore }))?.rssBytes ?? Number.NaN;
    const idleRss = await processRss();
    const idleDriver = await driverRss(healthyAt);
    let peakRss = idleRss;
    let peakDriver = idleDriver;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [p, d] = await Promise.all([processRss(), driverRss()]);
        peakRss = Math.max(peakRss, p);
        peakDriver = Math.max(peakDriver, d);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const summaryPath = path.join(tmp, `${driver.id}-${round}.json`);
    const measured = await bareK6Echo({ target: baseUrl, vus, durationSec, warmupSec, summaryPath }).finally(
      () => {
        sampling = false;
      },
    );
    await sampler;
    return {
      coldStartMs: healthyAt - server.startedAt,
      idleRssMb: idleRss / MB,
      peakRssMb: peakRss / MB,
      idleDriverMb: idleDriver / MB,
      peakDriverMb: peakDriver / MB,
      ...measured,
    };
  } finally {
    await server.stop(5_000);
  }
}

const docker = createDockerDriver();
await docker.docker.ping();
const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-docker-bench-"));
const results: Record<DriverId, Figures[]> = { local: [], docker: [] };
try {
  console.log(
    `${machine()} · ${rounds} rounds × ${durationSec}s (+${warmupSec}s warm-up) · ${vus} VUs · echo`,
  );
  for (let round = 0; round < rounds; round++) {
    // Interleaved, so drift on a shared machine hits both drivers alike.
    for (const driver of [localDriver, docker] as Driver[]) {
      const figures = await measure(driver, tmp, round);
      results[driver.id as DriverId].push(figures);
      console.log(
        `round ${round + 1} ${driver.id.padEnd(6)} cold start ${figures.coldStartMs.toFixed(0)} ms · RSS idle ${figures.idleRssMb.toFixed(1)} MB, peak ${figures.peakRssMb.toFixed(1)} MB (driver's figure ${figures.idleDriverMb.toFixed(1)} / ${figures.peakDriverMb.toFixed(1)} MB) · ${figures.rps.toFixed(0)} req/s · p99 ${figures.p99.toFixed(2)} ms`,
      );
    }
  }
} finally {
  await rm(tmp, { recursive: true, force: true });
}

const column = (id: DriverId, key: keyof Figures) => results[id].map((f) => f[key]);
console.log("\n| figure | local | docker | docker / local |\n| --- | --- | --- | --- |");
for (const [key, label, digits] of [
  ["coldStartMs", "cold start (ms)", 0],
  ["idleRssMb", "idle process RSS (MB)", 1],
  ["peakRssMb", "peak process RSS under load (MB)", 1],
  ["idleDriverMb", "idle, the driver's figure (MB)", 1],
  ["peakDriverMb", "peak under load, the driver's figure (MB)", 1],
  ["rps", "HTTP req/s", 0],
  ["p99", "tools/call p99 (ms)", 2],
] as const) {
  const l = column("local", key);
  const d = column("docker", key);
  console.log(
    `| ${label} | ${mean(l).toFixed(digits)} ± ${sd(l).toFixed(digits)} | ${mean(d).toFixed(digits)} ± ${sd(d).toFixed(digits)} | ${(mean(d) / mean(l)).toFixed(3)} |`,
  );
}
