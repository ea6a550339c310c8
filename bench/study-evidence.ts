/**
 * A study's run as evidence for the docs: waits for run `runId` on a running lab (the quick start's
 * `./scripts/up.sh`, or `--url`), sampling the host's load average meanwhile, then prints the run's
 * "Published beside reproduced" tables as Markdown, computed by the same code as the run page
 * (studyBeside), with the machine, the date, the run's wall time, its rounds decision and the load
 * average it ran under; then, per workload, what each server and k6 spent (CPU, memory, requests per
 * call) and each round's calls/s, which the rounds decision's pairs are drawn from.
 *
 *   pnpm -s perflab study io-tools --quick --no-wait      # prints the run's id
 *   pnpm --filter @perflab/bench exec tsx study-evidence.ts <runId> [--url http://127.0.0.1:3000]
 */
import { readFileSync } from "node:fs";
import { workloadName } from "@perflab/contracts";
import { type BesideTable, type CellDto, type RunDto, studyBeside } from "@perflab/web/testing";
import { machine } from "./lib.ts";

const args = process.argv.slice(2);
const runId = args.find((a) => !a.startsWith("--"));
const urlAt = args.indexOf("--url");
const base = urlAt >= 0 ? args[urlAt + 1] : (process.env.PERFLAB_URL ?? "http://127.0.0.1:3000");
if (!runId) throw new Error("usage: study-evidence.ts <runId> [--url <lab>]");

const TERMINAL = new Set(["succeeded", "failed", "partial", "cancelled"]);
const loads: number[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getRun(): Promise<{ run: RunDto; cells: CellDto[] }> {
  const headers: Record<string, string> = {};
  if (process.env.PERFLAB_TOKEN) headers.authorization = `Bearer ${process.env.PERFLAB_TOKEN}`;
  const res = await fetch(`${base}/api/v1/runs/${runId}`, { headers });
  if (!res.ok) throw new Error(`GET run ${runId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { run: RunDto; cells: CellDto[] };
}

/** Waits for the run to end, reading the 1-minute load average every 15 s. */
async function waitForEnd(): Promise<{ run: RunDto; cells: CellDto[] }> {
  for (;;) {
    const got = await getRun();
    if (got.run.status === "running") loads.push(Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]));
    if (TERMINAL.has(got.run.status)) return got;
    await sleep(15_000);
  }
}

const num = (v: number | null, digits: number) =>
  v === null
    ? "–"
    : v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const share = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)} %`);
const published = (t: BesideTable, i: number) => {
  const f = t.rows[i]!.published;
  if (f === null) return "–";
  if (typeof f === "number") return num(f, f < 10 ? 2 : 0);
  return `${f[0]}–${f[1]}`;
};

function tableMarkdown(t: BesideTable, scenarioName: string): string {
  const level = t.level.rate !== null ? `${t.level.rate}/s` : `${t.level.vus} VUs`;
  const lines = [
    `#### ${scenarioName}, ${level}: ${t.metric}`,
    "",
    "| row | study | study share | perflab | perflab share | notes |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  t.rows.forEach((r, i) => {
    const label = r.extra ? `${r.label} (extra)` : r.label;
    const notes = [r.missing, r.differs, ...r.flags].filter(Boolean).join("; ");
    const lab = num(r.lab, r.lab !== null && r.lab < 10 ? 2 : 0);
    lines.push(
      `| ${label} | ${published(t, i)} | ${share(r.studyShare)} | ${lab} | ${share(r.labShare)} | ${notes} |`,
    );
  });
  const order = t.swapped.length
    ? `Ordered the other way round here: ${t.swapped.map(([a, b]) => `${a} / ${b}`).join(", ")}.`
    : "The order agrees.";
  lines.push(
    "",
    `${t.compared} rows measured on both sides. ${order}${t.note ? ` The study's figures: ${t.note}.` : ""}`,
  );
  return lines.join("\n");
}

const avg = (values: (number | null | undefined)[]) => {
  const present = values.filter((v): v is number => typeof v === "number");
  return present.length ? present.reduce((a, b) => a + b, 0) / present.length : null;
};

/** Per workload: each server's rounds averaged — calls/s, HTTP requests/s, CPU of server and k6, RSS. */
function spentMarkdown(cells: CellDto[]): string[] {
  const out: string[] = [];
  for (const [workload, group] of groupBy(cells, (c) => workloadName(c))) {
    out.push(
      `#### ${workload}: what each server and k6 spent (mean of succeeded rounds)`,
      "",
      "| server | rounds | calls/s | HTTP req/s | req/call | server CPU % | server CPU ms/call | k6 CPU % | other CPU % | peak RSS MB | flags |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    );
    for (const [server, all] of groupBy(group, (c) => c.serverName)) {
      const ok = all.filter((c) => c.status === "succeeded" && c.summary);
      const s = (read: (c: CellDto) => number | null | undefined) => avg(ok.map(read));
      const flags = [
        ok.some((c) => c.k6Saturated) && "k6 saturated",
        ok.some((c) => c.machineBusy) && "machine busy",
        ok.some((c) => (c.summary?.errors ?? 0) > 0) && "failed calls",
        all.length > ok.length && `${all.length - ok.length} cell(s) not succeeded`,
      ].filter(Boolean);
      const rss = s((c) => c.summary!.rssPeakBytes);
      // CPU time per call (% of one core is 10 ms per second): a cost the machine's load moves less than calls/s.
      const cpuMs = s((c) =>
        c.summary!.cpuAvgPct === null ? null : (c.summary!.cpuAvgPct * 10) / c.summary!.opsRps,
      );
      const cells = [
        server,
        ok.length,
        num(
          s((c) => c.summary!.opsRps),
          0,
        ),
        num(
          s((c) => c.summary!.httpRps),
          0,
        ),
        num(
          s((c) => c.summary!.requestsPerOp),
          2,
        ),
        num(
          s((c) => c.summary!.cpuAvgPct),
          0,
        ),
        num(cpuMs, 2),
        num(
          s((c) => c.summary!.k6CpuAvgPct),
          0,
        ),
        num(
          s((c) => c.otherCpuPct),
          0,
        ),
        num(rss === null ? null : rss / 2 ** 20, 0),
        flags.join("; "),
      ];
      out.push(`| ${cells.join(" | ")} |`);
    }
    out.push("");
  }
  return out;
}

/** Each round's calls/s per workload and server, and each round's wall time (first start to last end). */
function roundsMarkdown(cells: CellDto[]): string[] {
  const rounds = [...new Set(cells.map((c) => c.round))].sort((a, b) => a - b);
  const minutes = rounds.map((r) => {
    const of = cells.filter((c) => c.round === r);
    const starts = of.flatMap((c) => (c.startedAt ? [Date.parse(c.startedAt)] : []));
    const ends = of.flatMap((c) => (c.finishedAt ? [Date.parse(c.finishedAt)] : []));
    return starts.length && ends.length ? (Math.max(...ends) - Math.min(...starts)) / 60_000 : null;
  });
  const out = [
    "#### calls/s by round",
    "",
    `| workload | server | ${rounds.map((r) => `round ${r}`).join(" | ")} |`,
    `| --- | --- | ${rounds.map(() => "---:").join(" | ")} |`,
  ];
  for (const [workload, group] of groupBy(cells, (c) => workloadName(c))) {
    for (const [server, all] of groupBy(group, (c) => c.serverName)) {
      const byRound = rounds.map((r) => {
        const cell = all.find((c) => c.round === r);
        return cell?.status === "succeeded" && cell.summary
          ? num(cell.summary.opsRps, 0)
          : (cell?.status ?? "");
      });
      out.push(`| ${workload} | ${server} | ${byRound.join(" | ")} |`);
    }
  }
  out.push(
    "",
    `Minutes per round: ${minutes.map((m, i) => `${rounds[i]}: ${m === null ? "?" : m.toFixed(1)}`).join(", ")}.`,
  );
  return out;
}

/** The rounds decision as sentences: why it stopped, then each neighbouring pair's gap interval. */
function decisionMarkdown(rounds: NonNullable<RunDto["rounds"]>): string[] {
  const out = [
    `Rounds decision after ${rounds.roundsDone} rounds: ${rounds.reason ?? "adding rounds"} (${rounds.decidedAt}).`,
    "",
  ];
  for (const p of rounds.pairs) {
    const gap = p.gapPct
      ? `${p.gapPct[0].toFixed(1)} to ${p.gapPct[1].toFixed(1)} % fewer calls/s`
      : "no interval";
    out.push(`- ${p.workload}: ${p.faster} > ${p.slower}, ${gap}: ${p.verdict}`);
  }
  return out;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const { run, cells } = await waitForEnd();
const spec = run.spec;
const wallMin =
  run.startedAt && run.finishedAt ? (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 60_000 : null;
const load = loads.length
  ? `load average (1 min) while it ran: mean ${(loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1)}, max ${Math.max(...loads).toFixed(1)}`
  : "load average not sampled (the run had ended)";
console.log(`### ${run.name} (${spec.study?.id ?? "no study"}, ${spec.study?.variant ?? "–"})\n`);
console.log(
  `Run ${run.id}: ${run.status}, ${run.cellsDone} cells (${run.cellsFailed} failed), ${wallMin === null ? "?" : wallMin.toFixed(1)} min, driver ${spec.driver}; ${machine()}; started ${run.startedAt ?? "?"}, ended ${run.finishedAt ?? "?"}; ${load}.`,
);
if (run.rounds) console.log(`\n${decisionMarkdown(run.rounds).join("\n")}`);
for (const t of studyBeside(spec, cells)) {
  const scenario = spec.scenarios[t.scenario];
  const name = scenario
    ? workloadName({ scenario: scenario.id, params: scenario.params ?? {} })
    : `workload ${t.scenario}`;
  console.log(`\n${tableMarkdown(t, name)}`);
}
console.log(`\n${spentMarkdown(cells).join("\n")}`);
if (cells.some((c) => c.round > 1)) console.log(roundsMarkdown(cells).join("\n"));
