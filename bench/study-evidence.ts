/**
 * A study's run as evidence for the docs: waits for run `runId` on a running lab (the quick start's
 * `./scripts/up.sh`, or `--url`), sampling the host's load average meanwhile, then prints the run's
 * "Published beside reproduced" tables as Markdown, computed by the same code as the run page
 * (studyBeside), with the machine, the date, the run's wall time, its rounds decision and the load
 * average it ran under.
 *
 *   pnpm -s perflab study io-tools --quick --no-wait      # prints the run's id
 *   pnpm --filter @perflab/bench exec tsx study-evidence.ts <runId> [--url http://127.0.0.1:3000]
 */
import { readFileSync } from "node:fs";
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
  lines.push("", `${t.compared} rows measured on both sides. ${order}${t.note ? ` ${t.note}` : ""}`);
  return lines.join("\n");
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
  `Run ${run.id}: ${run.status}, ${run.cellsDone} cells (${run.cellsFailed} failed), ${wallMin === null ? "?" : wallMin.toFixed(1)} min, driver ${spec.driver}; ${machine()}; ${new Date().toISOString().slice(0, 10)}; ${load}.`,
);
if (run.rounds) console.log(`\nRounds: ${JSON.stringify(run.rounds)}`);
for (const t of studyBeside(spec, cells)) {
  const scenario = spec.scenarios[t.scenario];
  const name = scenario
    ? `${scenario.id} ${JSON.stringify(scenario.params ?? {})}`
    : `workload ${t.scenario}`;
  console.log(`\n${tableMarkdown(t, name)}`);
}
