/**
 * The servers/README.md table, measured through perflab: for each reference server, idle RSS and
 * cold start, then RPS and tools/call p99 of `echo` at 50 VUs. Rounds are interleaved across servers.
 *
 *   pnpm exec tsx bench/servers-table.ts [rounds=2] [durationSec=20] [vus=50] [servers=every server]
 *     [--driver=docker --cpus=1 --memory-mb=2048]
 *
 * `servers` is a comma-separated list that may name variants (`node,node:cluster`). With
 * `--driver=docker` each server runs its image (build them first: scripts/docker/build-images.sh)
 * under the given limits, so on a small machine k6 keeps the cores the server may not use.
 */
import { loadServerCatalog, withVariants } from "@perflab/catalog";
import type { DriverId } from "@perflab/contracts";
import { opsPerCpuSecond } from "@perflab/metrics/stats";
import { machine, mean, startLab } from "./lib.ts";

const flags = new Map(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith("--"))
    .map((a) => {
      const [key, value = ""] = a.slice(2).split("=");
      return [key!, value] as const;
    }),
);
for (const key of flags.keys()) {
  if (!["driver", "cpus", "memory-mb"].includes(key)) throw new Error(`unknown flag --${key}`);
}
const driverFlag = flags.get("driver") ?? "local";
if (driverFlag !== "local" && driverFlag !== "docker") {
  throw new Error(`--driver must be local or docker, not ${driverFlag}`);
}
const driver: DriverId = driverFlag;
if (driver === "local" && (flags.has("cpus") || flags.has("memory-mb"))) {
  throw new Error("--cpus and --memory-mb limit containers: add --driver=docker");
}
const limits =
  driver === "docker"
    ? { cpus: Number(flags.get("cpus") ?? 2), memoryMb: Number(flags.get("memory-mb") ?? 2048) }
    : undefined;
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const [rounds = 2, durationSec = 20, vus = 50] = args.slice(0, 3).map(Number);
const known = withVariants(loadServerCatalog()).map((s) => s.name);
const servers = args[3] ? args[3].split(",") : loadServerCatalog().map((s) => s.name);
const unknown = servers.filter((name) => !known.includes(name));
if (unknown.length > 0) throw new Error(`unknown servers ${unknown.join(", ")}; known: ${known.join(", ")}`);
const lab = await startLab();
try {
  const cells = await lab.runCells(
    Array.from({ length: rounds }, () =>
      servers.map((serverName) => ({
        serverName,
        tool: "echo",
        args: { message: "hello" },
        vus,
        durationSec,
        warmupSec: 5,
        driver,
        limits,
      })),
    ).flat(),
  );
  const mb = (b: bigint | number | null | undefined) =>
    b == null ? "—" : `${(Number(b) / 2 ** 20).toFixed(1)} MB`;
  console.log(`machine: ${machine()}`);
  console.log(
    `echo, ${vus} VUs, 5 s warm-up + ${durationSec} s, ${rounds} interleaved rounds, ${
      limits ? `docker driver (${limits.cpus} vCPU, ${limits.memoryMb} MB)` : "local driver"
    }, k6 on the same machine\n`,
  );
  // Under the docker driver memory is the container's (cgroup usage minus inactive file pages, as docker stats shows).
  const memory = limits ? "memory" : "RSS";
  console.log(
    `| server | idle ${memory} | cold start | ops/s | tools/call p99 | peak ${memory} under load | server CPU | ops per server CPU-second | k6 CPU | k6 saturated |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const name of servers) {
    const mine = cells.filter((c) => c.serverName === name);
    const ok = mine.filter((c) => c.status === "succeeded" && c.summary);
    if (ok.length === 0) {
      console.log(`| ${name} | failed: ${mine[0]?.error ?? "no result"} ||||||||`);
      continue;
    }
    const p99 = ok.map(
      (c) =>
        (c.summary!.byOperation as { method: string; p99: number }[]).find((o) => o.method === "tools/call")!
          .p99,
    );
    // Throughput per core the server actually used: comparable even where k6, not the server, set the ceiling.
    const perCpuSecond = ok.map((c) => opsPerCpuSecond(c.summary!) ?? Number.NaN);
    const row = [
      name,
      mb(mean(ok.map((c) => Number(c.idleRssBytes ?? 0)))),
      `${mean(ok.map((c) => c.coldStartMs ?? 0)).toFixed(0)} ms`,
      mean(ok.map((c) => c.summary!.opsRps)).toFixed(0),
      `${mean(p99).toFixed(1)} ms`,
      mb(Math.max(...ok.map((c) => Number(c.summary!.rssPeakBytes ?? 0)))),
      `${mean(ok.map((c) => c.summary!.cpuAvgPct ?? 0)).toFixed(0)} %`,
      mean(perCpuSecond).toFixed(0),
      `${mean(ok.map((c) => c.summary!.k6CpuAvgPct ?? 0)).toFixed(0)} %`,
      ok.some((c) => c.k6Saturated) ? "yes" : "no",
    ];
    console.log(`| ${row.join(" | ")} |`);
  }
} finally {
  await lab.stop();
}
