/**
 * A study's mixed tool load (001 four-tools, 002 io-tools) in minutes instead of hours: the
 * published variant's workload (one `mcp-tool-mix` cell per server) at the quick variant's load and
 * durations on the local driver, and that run's rates and percentiles per tool, beside what the
 * study printed for its rows.
 *
 *   pnpm --filter @perflab/bench exec tsx tool-mix.ts queue four-tools [--dry] [--url <lab>]
 *   pnpm --filter @perflab/bench exec tsx tool-mix.ts <runId> [--url <lab>]
 */
import { findStudy, matrixEstimate, studyMatrix, type TMatrixSpecInput } from "@perflab/contracts";
import type { CellDto } from "@perflab/web/testing";
import { labUrl, levelOf, mb, num, positionals, queueMatrix, waitForEnd } from "./lab-api.ts";
import { machine } from "./lib.ts";

type Operation = {
  method: string;
  tool: string;
  count: number;
  errors: number;
  timeouts?: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  avgMs: number | null;
};

/** The study's published workload at its quick load, on every row this lab has; recorded as the study's published variant. */
async function mixSpec(studyId: string): Promise<TMatrixSpecInput> {
  const study = findStudy(studyId);
  if (!study?.publishedScenarios) throw new Error(`${studyId}: not a study that mixed its tools`);
  const res = await fetch(`${labUrl}/api/v1/servers`);
  const lab = (await res.json()) as { servers: { name: string }[] };
  const { spec, missing } = studyMatrix(
    study,
    "published",
    lab.servers.map((s) => s.name),
  );
  for (const row of missing) console.error(`  without ${row.label}: ${row.missing}`);
  // Rows only: the study's extras double the machine time and the study printed nothing for them.
  const rows = new Set(study.rows.flatMap((r) => (r.server ? [r.server] : [])));
  const { limits: _published, ...rest } = spec;
  return {
    ...rest,
    ...study.quick,
    driver: "local",
    servers: spec.servers.filter((s) => rows.has(s)),
    name: `${study.title}: tools mixed as published, quick load`,
  };
}

async function queue(studyId: string, dry: boolean) {
  const spec = await mixSpec(studyId);
  const { cells, totalSec } = matrixEstimate(spec);
  console.error(
    `${studyId} mix: ${spec.servers.join(", ")} · ${cells} cells, about ${Math.round(totalSec / 60)} min`,
  );
  if (dry) return console.log(JSON.stringify(spec, null, 2));
  console.log(await queueMatrix(spec));
}

function toolTable(cell: CellDto): string {
  const s = cell.summary!;
  const ops = (Array.isArray(s.operations) ? (s.operations as Operation[]) : []).toSorted(
    (a, b) => Number(b.method === "tools/call") - Number(a.method === "tools/call") || b.count - a.count,
  );
  const calls = ops.filter((o) => o.method === "tools/call").reduce((n, o) => n + o.count, 0);
  const lines = [
    "| request | per s | share of calls | p50 ms | p95 ms | p99 ms | mean ms | errors | timeouts |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const o of ops) {
    const name = o.method === "tools/call" ? o.tool : o.method;
    const share = o.method === "tools/call" && calls > 0 ? `${Math.round((o.count * 100) / calls)} %` : "";
    lines.push(
      `| ${name} | ${num(o.count / s.windowSeconds, 1)} | ${share} | ${num(o.p50, 2)} | ${num(o.p95, 2)} | ${num(o.p99, 2)} | ${num(o.avgMs, 2)} | ${o.errors} | ${o.timeouts ?? 0} |`,
    );
  }
  return lines.join("\n");
}

function cellLine(cell: CellDto): string {
  const s = cell.summary;
  if (!s) return `${cell.serverName}: ${cell.status}${cell.error ? ` (${cell.error})` : ""}`;
  const flags = [
    cell.k6Saturated && "k6 saturated",
    cell.machineBusy && "machine busy",
    cell.warmingUp && "still warming up",
  ];
  return [
    `${cell.serverName}, ${levelOf(cell)}, ${s.windowSeconds} s measured: ${num(s.opsRps)} calls/s, ${num(s.httpRps)} HTTP requests/s`,
    `(${num(s.requestsPerOp, 2)} a call), mean ${num(s.latency.avgMs, 2)} ms, p99 ${num(s.latency.p99, 2)} ms,`,
    `server RSS mean ${mb(s.rssAvgBytes)} MB, CPU ${num(s.cpuAvgPct)} %, k6 CPU ${num(s.k6CpuAvgPct)} %,`,
    `${num(s.rpsPerMb, 1)} requests/s per MB, session drops ${num(s.sessionDropPct, 2)} %${flags
      .filter(Boolean)
      .map((f) => `; ${f}`)
      .join("")}`,
  ].join(" ");
}

async function print(runId: string) {
  const { run, cells } = await waitForEnd(runId);
  const wall =
    run.startedAt && run.finishedAt
      ? (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 60_000
      : null;
  console.log(`### ${run.name}\n`);
  console.log(
    `Run ${run.id}: ${run.status}, ${run.cellsDone} cells (${run.cellsFailed} failed), ${num(wall, 1)} min; ${machine()}.`,
  );
  for (const cell of cells.toSorted((a, b) => a.index - b.index)) {
    console.log(`\n#### ${cell.serverName}\n\n${cellLine(cell)}\n`);
    if (cell.summary) console.log(toolTable(cell));
  }
}

const [first, second] = positionals;
if (first === "queue" && second) await queue(second, positionals.includes("--dry"));
else if (first && first !== "queue") await print(first);
else throw new Error("usage: tool-mix.ts queue <studyId> [--dry] | tool-mix.ts <runId> [--url <lab>]");
