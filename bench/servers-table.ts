/**
 * The servers/README.md table, measured through perflab: for each reference server, idle RSS and
 * cold start, then RPS and tools/call p99 of `echo` at 50 VUs. Rounds are interleaved across servers.
 *
 *   pnpm exec tsx bench/servers-table.ts [rounds=2] [durationSec=20] [vus=50] [servers=every server]
 *
 * `servers` is a comma-separated list that may name variants (`node,node:cluster`).
 */
import { loadServerCatalog, withVariants } from "@perflab/contracts/server-catalog";
import { machine, mean, startLab } from "./lib.ts";

const args = process.argv.slice(2);
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
      })),
    ).flat(),
  );
  const mb = (b: bigint | number | null | undefined) =>
    b == null ? "—" : `${(Number(b) / 2 ** 20).toFixed(1)} MB`;
  console.log(`machine: ${machine()}`);
  console.log(
    `echo, ${vus} VUs, 5 s warm-up + ${durationSec} s, ${rounds} interleaved rounds, local driver, k6 on the same machine\n`,
  );
  console.log(
    "| server | idle RSS | cold start | ops/s | tools/call p99 | peak RSS under load | server CPU | k6 CPU | k6 saturated |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const name of servers) {
    const mine = cells.filter((c) => c.serverName === name);
    const ok = mine.filter((c) => c.status === "succeeded" && c.summary);
    if (ok.length === 0) {
      console.log(`| ${name} | failed: ${mine[0]?.error ?? "no result"} |||||||`);
      continue;
    }
    const p99 = ok.map(
      (c) =>
        (c.summary!.byOperation as { method: string; p99: number }[]).find((o) => o.method === "tools/call")!
          .p99,
    );
    console.log(
      `| ${name} | ${mb(mean(ok.map((c) => Number(c.idleRssBytes ?? 0))))} | ${mean(ok.map((c) => c.coldStartMs ?? 0)).toFixed(0)} ms | ${mean(ok.map((c) => c.summary!.opsRps)).toFixed(0)} | ${mean(p99).toFixed(1)} ms | ${mb(Math.max(...ok.map((c) => Number(c.summary!.rssPeakBytes ?? 0))))} | ${mean(ok.map((c) => c.summary!.cpuAvgPct ?? 0)).toFixed(0)} % | ${mean(ok.map((c) => c.summary!.k6CpuAvgPct ?? 0)).toFixed(0)} % | ${ok.some((c) => c.k6Saturated) ? "yes" : "no"} |`,
    );
  }
} finally {
  await lab.stop();
}
