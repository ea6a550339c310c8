import { failedCallsPct, rateWord, workloadName, type ZRunDetail, type ZVerdict } from "@perflab/contracts";
import type { z } from "zod";
import type { Global } from "./args.ts";
import { EXIT, type Io } from "./io.ts";
import { roughDuration, studyListing } from "./study.ts";

type RunDetail = z.infer<typeof ZRunDetail>;
type Verdict = z.infer<typeof ZVerdict>;

const fmt = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined
    ? "—"
    : value.toLocaleString("en-US", { maximumFractionDigits: digits });
const mb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${fmt(bytes / 2 ** 20, 1)} MB`;
const kb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${fmt(bytes / 1024, 1)} KB`;
/** The share of the measured calls that failed: a run of tool errors must not read as a result. */
const errorShare = (s: { requests: number; errors: number; ops: number } | null | undefined) => {
  const pct = s ? failedCallsPct(s) : null;
  return pct === null ? "—" : `${fmt(pct, s!.errors === 0 ? 0 : 1)} %`;
};
/** A load level, its open-model rate in what the scenario starts ("500 calls/s", "50 sessions/s"). */
export const level = (l: { vus: number | null; rate: number | null; scenario: string }) =>
  l.rate !== null ? `${l.rate} ${rateWord(l.scenario)}/s` : l.vus !== null ? `${l.vus} VUs` : "—";

/** Rows of text in aligned columns. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * What makes a cell's numbers less than the server's own: k6 set the throughput, other work on the
 * machine competed with the server and k6, or the server was still warming up (the run page's badges).
 */
function flags(c: RunDetail["cells"][number]): string {
  return [
    c.k6Saturated ? "k6-saturated" : "",
    c.machineBusy ? "machine-busy" : "",
    c.warmingUp ? "warming-up" : "",
  ]
    .filter(Boolean)
    .join(",");
}

export function printRun(io: Io, global: Global, detail: RunDetail): void {
  io.out(`run ${detail.run.id} ${detail.run.status}: ${global.url}/runs/${detail.run.id}`);
  // Cells that held sessions open (--sessions-per-vu, --think-ms) also say what each session cost.
  const held = detail.cells.some(
    (c) => c.params.sessionsPerVu !== undefined || c.params.thinkMs !== undefined,
  );
  // A run of several workloads (a study, a payload sweep) says which each cell ran.
  const workloads = new Set(detail.cells.map((c) => workloadName(c))).size > 1;
  const rows = [
    [
      "#",
      "server",
      ...(workloads ? ["workload"] : []),
      "load",
      "round",
      "status",
      "ops/s",
      "p99 ms",
      "errors",
      "peak RSS",
      ...(held ? ["sessions", "RSS/session"] : []),
      "flags",
      "error",
    ],
  ];
  for (const c of detail.cells) {
    const s = c.summary;
    rows.push([
      String(c.index),
      c.serverName,
      ...(workloads ? [workloadName(c)] : []),
      level({ vus: c.vus, rate: c.rate ?? null, scenario: c.scenario }),
      String(c.round),
      c.status,
      fmt(s?.opsRps, 1),
      fmt(s?.latency.p99, 2),
      errorShare(s),
      mb(s?.rssPeakBytes),
      ...(held ? [fmt(c.heldSessions), kb(c.rssPerSessionBytes)] : []),
      flags(c),
      c.error ?? "",
    ]);
  }
  for (const line of table(rows)) io.out(line);
}

export function printVerdict(io: Io, verdict: Verdict): void {
  io.out(
    `verdict: ${verdict.outcome.toUpperCase()} — run ${verdict.runId} against baseline ${verdict.baselineRunId}, tolerance ${verdict.tolerancePct} %`,
  );
  const what = (c: { params: Record<string, unknown>; scenario: string }) =>
    typeof c.params.tool === "string"
      ? c.params.tool
      : typeof c.params.route === "string"
        ? c.params.route
        : c.scenario;
  const rows = [["server", "workload", "load", "metric", "baseline", "candidate", "change", "outcome"]];
  const show = (metric: string, v: number) =>
    metric === "rssPeakBytes"
      ? mb(v)
      : metric === "p99Ms"
        ? `${fmt(v, 2)} ms`
        : metric === "errorPct"
          ? `${v.toFixed(2)} %`
          : fmt(v, 1);
  for (const c of verdict.checks) {
    rows.push([
      c.server,
      what(c),
      level(c),
      c.metric,
      `${show(c.metric, c.baseline.mean)}${c.baseline.n > 1 ? ` (n=${c.baseline.n})` : ""}`,
      `${show(c.metric, c.candidate.mean)}${c.candidate.n > 1 ? ` (n=${c.candidate.n})` : ""}`,
      `${c.changePct >= 0 ? "+" : ""}${c.changePct.toFixed(1)} ${c.metric === "errorPct" ? "pts" : "%"}`,
      `${c.outcome}${c.note ? ` (${c.note})` : ""}`,
    ]);
  }
  if (verdict.checks.length > 0) for (const line of table(rows)) io.out(line);
  for (const f of verdict.failed) {
    io.out(
      `failed here, measured in the baseline: ${f.server} · ${what(f)} · ${level(f)} (${f.cells} cell${f.cells === 1 ? "" : "s"}${f.error ? `: ${f.error}` : ""})`,
    );
  }
  for (const u of verdict.unmatched) io.out(`only in the ${u.in}: ${u.server} · ${what(u)} · ${level(u)}`);
  for (const n of verdict.notMeasured ?? [])
    io.out(
      `not judged on ${n.metric}: ${n.server} · ${what(n)} · ${level(n)} (a registered endpoint: not measured)`,
    );
  for (const e of verdict.environment) {
    io.out(`warning: the runs differ in ${e.aspect}: ${e.variants.map((v) => v.label).join(" | ")}`);
  }
}

export const verdictExit = (verdict: Verdict) =>
  verdict.outcome === "pass" ? EXIT.ok : verdict.outcome === "fail" ? EXIT.failed : EXIT.inconclusive;

/** The studies, grouped by the publication they reproduce, with each variant's cells and time. */
export function printStudies(io: Io, global: Global): void {
  const listing = studyListing();
  if (global.json) {
    io.out(JSON.stringify({ studies: listing }));
    return;
  }
  const variant = (v: { cells: number; seconds: number }) =>
    `${v.cells} cell${v.cells === 1 ? "" : "s"}, ~${roughDuration(v.seconds)}`;
  const rows = [
    ["study", "published", "quick", "title"],
    ...listing.map((s) => [s.id, variant(s.variants.published), variant(s.variants.quick), s.title]),
  ];
  const lines = table(rows);
  io.out(`  ${lines[0]}`);
  const sources = [...new Set(listing.map((s) => s.source))];
  for (const source of sources) {
    const group = listing.filter((s) => s.source === source);
    const servers = [...new Set(group.flatMap((s) => s.servers))];
    io.out(`${source} · ${servers.join(", ")}`);
    for (const s of group) io.out(`  ${lines[listing.indexOf(s) + 1]}`);
  }
  io.out("");
  io.out("cells and time with all of a study's servers (a lab lacking some queues fewer): warm-up,");
  io.out("measured seconds and cool-down of each cell, and about 3 s to start and stop its server.");
  io.out("perflab study <id> [--quick] queues one; perflab help study for its options");
}
