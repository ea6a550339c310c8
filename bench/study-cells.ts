/**
 * Every cell of a run with the figures a study printed that its "Published beside reproduced" view
 * does not carry: latency spread and tail, dropped calls and sessions, RSS (idle, mean, peak, per
 * held session), the runtime's heap, GC collections and pauses, CPU of server and k6, drift. Waits
 * for the run to end, then prints two Markdown tables (latency, resources), a row per cell; with
 * `--every <s>`, a third: each cell's measured window in slices of that many seconds (calls/s, the
 * slice's worst per-second p99, RSS, heap, longest GC pause), to see drift in a long cell.
 *
 *   pnpm --filter @perflab/bench exec tsx study-cells.ts <runId> [--every 30] [--url <lab>]
 */
import { workloadName } from "@perflab/contracts";
import type { CellDto } from "@perflab/web/testing";
import { levelOf, mb, num, positionals, runPoints, waitForEnd } from "./lab-api.ts";

const runId = positionals[0];
if (!runId) throw new Error("usage: study-cells.ts <runId> [--every <s>] [--url <lab>]");
const everyAt = positionals.indexOf("--every");
const every = everyAt >= 0 ? Number(positionals[everyAt + 1]) : null;

const { run, cells } = await waitForEnd(runId);
const points = await runPoints(runId);
const ordered = cells.toSorted((a, b) => a.index - b.index);

/** The highest heap the runtime reported in the measured window, bytes (null: it reports none). */
function heapPeak(cell: CellDto): number | null {
  const heaps = (points[cell.id] ?? [])
    .filter((p) => p.phase === "measure")
    .flatMap((p) => (typeof p.heapUsedBytes === "number" ? [p.heapUsedBytes] : []));
  return heaps.length ? Math.max(...heaps) : null;
}

const who = (c: CellDto) =>
  `${c.serverName} | ${workloadName(c)} | ${levelOf(c)}${c.round > 1 ? ` r${c.round}` : ""}`;
const flags = (c: CellDto) =>
  [
    c.status !== "succeeded" && c.status,
    c.k6Saturated && "k6 saturated",
    c.machineBusy && "machine busy",
    c.warmingUp && "warming up",
  ]
    .filter(Boolean)
    .join(", ");

function latencyRow(c: CellDto): string {
  const s = c.summary;
  if (!s) return `| ${who(c)} | ${c.status}: ${c.error ?? ""} |`;
  const l = s.latency;
  return `| ${who(c)} | ${num(s.opsRps)} | ${num(s.httpRps)} | ${num(l.p50, 2)} | ${num(l.p95, 2)} | ${num(l.p99, 2)} | ${num(l.maxMs, 1)} | ${num(l.avgMs, 2)} | ${num(s.latencyStddevMs, 2)} | ${s.errors} | ${s.timeouts ?? "–"} | ${s.droppedCalls ?? "–"} | ${num(s.sessionDropPct, 2)} | ${num(s.drift?.p99Ms.changePct)} | ${flags(c)} |`;
}

function resourceRow(c: CellDto): string {
  const s = c.summary;
  if (!s) return `| ${who(c)} | ${c.status} |`;
  const perSession = c.rssPerSessionBytes === null ? "–" : num(c.rssPerSessionBytes / 1024, 1);
  return `| ${who(c)} | ${mb(c.idleRssBytes)} | ${mb(s.rssAvgBytes)} | ${mb(s.rssPeakBytes)} | ${mb(heapPeak(c))} | ${c.heldSessions ?? "–"} | ${perSession} | ${num(s.cpuAvgPct)} | ${num(s.k6CpuAvgPct)} | ${num(s.gcCollectionsPerSec, 1)} | ${num(s.gcPauseAvgMs, 2)} | ${num(s.gcPauseMaxMs, 1)} | ${num(s.rpsPerMb, 1)} | ${num(s.drift?.rssBytes.slopePerHour === undefined || s.drift?.rssBytes.slopePerHour === null ? null : s.drift.rssBytes.slopePerHour / 2 ** 20, 0)} |`;
}

const wall =
  run.startedAt && run.finishedAt ? (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 60_000 : null;
console.log(`### ${run.name}: every cell\n`);
console.log(
  `Run ${run.id}: ${run.status}, ${run.cellsDone} cells (${run.cellsFailed} failed), ${num(wall, 1)} min, driver ${run.spec.driver}.\n`,
);
console.log(
  "| server | workload | level | calls/s | HTTP req/s | p50 ms | p95 ms | p99 ms | max ms | mean ms | sd ms | errors | timeouts | dropped calls | session drops % | p99 drift % | notes |",
);
console.log(
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
);
for (const c of ordered) console.log(latencyRow(c));
console.log(
  "\n| server | workload | level | idle RSS MB | RSS mean MB | RSS peak MB | heap peak MB | held sessions | RSS per session KB | CPU % | k6 CPU % | GC/s | GC pause avg ms | GC pause max ms | req/s per MB | RSS trend MB/h |",
);
console.log(
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
);
for (const c of ordered) console.log(resourceRow(c));

/** One row per slice of `seconds` of a cell's measured window. */
function sliceRows(c: CellDto, seconds: number): string[] {
  const measured = (points[c.id] ?? []).filter((p) => p.phase === "measure");
  if (measured.length === 0) return [];
  const first = measured[0]!.second;
  const slices = new Map<number, typeof measured>();
  for (const p of measured) {
    const at = Math.floor((p.second - first) / seconds) * seconds;
    slices.set(at, [...(slices.get(at) ?? []), p]);
  }
  const max = (xs: (number | null | undefined)[]) => {
    const v = xs.filter((x): x is number => typeof x === "number");
    return v.length ? Math.max(...v) : null;
  };
  // A stray last second (the window's edge) is no slice of its own.
  return [...slices]
    .filter(([, ps]) => ps.length * 2 >= Math.min(seconds, measured.length))
    .map(([at, ps]) => {
      const rps = ps.reduce((n, p) => n + p.rps, 0) / ps.length;
      const rss = ps.at(-1)!.rssBytes;
      return `| ${c.serverName} | ${at}–${at + ps.length} s | ${num(rps)} | ${num(max(ps.map((p) => p.p99)), 1)} | ${mb(rss)} | ${mb(ps.at(-1)!.heapUsedBytes)} | ${num(max(ps.map((p) => p.gcPauseMaxMs)), 1)} |`;
    });
}

if (every !== null && every > 0) {
  console.log(
    `\n| server | window | calls/s | worst p99 of a second, ms | RSS at its end MB | heap at its end MB | longest GC pause ms |`,
  );
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const c of ordered) for (const row of sliceRows(c, every)) console.log(row);
}
