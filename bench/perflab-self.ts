/**
 * How does perflab itself cope with long cells? Against a real embedded Postgres (durable, as the
 * quick start runs it), Redis and the built web app (`next start`; the worker's part of an upload,
 * ingestUpload, runs in this process), it uploads
 * synthetic but valid perflab k6 output — one line per second, histograms made with the same HDR
 * encoder the lab decodes, ~`rate` tool calls per second at 2–5 ms — of several lengths, then reads
 * each run back the way the dashboard does:
 *
 *   upload     POST /api/v1/uploads (the body stored, answered 202): wall time, lines/s, body MiB,
 *              RSS of the web app's processes (VmRSS from /proc, sampled every 20 ms) before, at its
 *              peak and 3 s after; then the ingest a worker does (ingestUpload): wall time, rows
 *              stored, and the rollups' share (re-run here with writeCellRollups, the code the
 *              ingest ends with);
 *   read       GET /api/v1/runs/:id, the first (snapshot) frame of GET /api/v1/runs/:id/events —
 *              the run page's series — with its points per cell, and the HTML of /runs/:id;
 *   report     POST /api/v1/reports (time, frozen snapshot size and points), then /r/:slug;
 *   compare    /compare?runs=a,b (and /api/v1/comparison) for two 60 s runs and for the two longest.
 *
 * Each GET is timed `repeats` times after one untimed request (median; bytes decoded, and as sent
 * when gzip'd). Cells: 60 s, 1 h and 6 h at `rate`, the longest at `rate` whose output fits the
 * upload limit (UPLOAD_MAX_BYTES), 24 h at `lowRate` (which fits), and 24 h at `rate`, only sent to
 * check that it is refused. The machine may be shared, so the web app may use at most
 * `--max-web-gib` (default 12 GiB, less when less memory is free): an upload that the RSS per line
 * of the largest one so far says would pass it is skipped, and one that passes it anyway is killed
 * (the web app is restarted); an upload that finds the web app still holding over 512 MiB restarts
 * it first. Runs and reports are deleted, services stopped and the data dir removed at the end.
 * About 4 minutes on 2 cores.
 *
 *   pnpm --filter @perflab/bench perflab-self [rate=2000] [repeats=5] [lowRate=200] [--max-web-gib=12]
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDb, writeCellRollups } from "@perflab/db";
import { UPLOAD_MAX_BYTES } from "@perflab/web/testing";
import { ingestUpload } from "@perflab/worker/testing";
import { freePort, repoRoot, startPostgres, startRedis, startWeb } from "../scripts/lib/services.ts";
import { duration, kib, mib, msOrS, n0, send, sized, timed } from "./http-timing.ts";
import { machine } from "./lib.ts";
import { processTree, rssBytes, sampleRss } from "./procs.ts";
import { body, END_LINE, type Output, synthesize, VUS, WARMUP_SEC } from "./synthetic-output.ts";

const args = process.argv.slice(2);
const maxWebGiB = Number(args.find((a) => a.startsWith("--max-web-gib="))?.split("=")[1] ?? 0);
const [rate = 2000, repeats = 5, lowRate = 200] = args.filter((a) => !a.startsWith("--")).map(Number);
const MiB = 2 ** 20;
const GiB = 2 ** 30;
const DAY = 86_400;
/** The run page's and a report's point caps (apps/web/src/lib/downsample.ts, lib/report-dto.ts). */
const PAGE_POINTS = 2_000;
const REPORT_POINTS = 600;

// ---------------------------------------------------------------------------------------------
// Preconditions: a finished build of the web app, and nobody rebuilding it underneath us.
// ---------------------------------------------------------------------------------------------

const webDir = path.join(repoRoot, "apps/web");
const building = (() => {
  try {
    return execFileSync("pgrep", ["-f", "next build"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
})();
if (building) {
  console.error(
    `\`next build\` is running (pid ${building.split("\n").join(", ")}): try again when it ends.`,
  );
  process.exit(1);
}
if (!existsSync(path.join(webDir, ".next/BUILD_ID"))) {
  console.error("apps/web/.next/BUILD_ID is missing: the web app is not built (`pnpm --filter web build`).");
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Synthetic k6 output, shaped as perflab's k6 output extension writes it (packages/k6-output).
// ---------------------------------------------------------------------------------------------

/** The most seconds (a multiple of `step`) whose NDJSON stays within `limit` bytes. */
function secondsThatFit(output: Output, limit: number, step = 600): number {
  let bytes = output.startLine.length + 1 + END_LINE.length + 1;
  let fit = 0;
  for (let i = 0; i < output.lines.length; i++) {
    bytes += output.lines[i]!.length + 1;
    if (bytes > limit) break;
    if ((i + 1) % step === 0) fit = i + 1;
  }
  return fit;
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

type Cell = {
  label: string;
  seconds: number;
  perSecond: number;
  output: Output;
  runId?: string;
  slug?: string;
  col: Map<string, string>;
};

const startedAt = new Date();
const load0 = os.loadavg();
const memAvailable =
  Number(/^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]) * 1024;
const ceiling = maxWebGiB ? maxWebGiB * GiB : Math.min(12 * GiB, memAvailable - 4 * GiB);
const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-self-"));
await chmod(tmp, 0o755);
const services: { stop: () => Promise<void> }[] = [];
let web: Awaited<ReturnType<typeof startWeb>> | null = null;
const runIds: string[] = [];
const slugs: string[] = [];
let db: ReturnType<typeof createDb> | null = null;

try {
  const redis = await startRedis({ dir: path.join(tmp, "redis"), port: await freePort() });
  services.push(redis);
  const pg = await startPostgres({ dir: path.join(tmp, "pg"), port: await freePort(), durable: true });
  services.push(pg);
  db = createDb(pg.url);
  let port = 0;
  const restartWeb = async () => {
    await web?.stop();
    port = await freePort();
    web = await startWeb({ databaseUrl: pg.url, redisUrl: redis.url, port });
  };
  await restartWeb();
  const webPids = () => processTree(web!.child.pid!);
  console.log(
    `web app on 127.0.0.1:${port}, Postgres (durable) and Redis in ${tmp}; ` +
      `the web app is killed if its RSS passes ${mib(ceiling)}`,
  );

  // --- synthesize ---
  const t0 = performance.now();
  const short = synthesize(60, rate, 1);
  const day = synthesize(DAY, rate, 4);
  const dayLow = synthesize(DAY, lowRate, 5);
  const fit = secondsThatFit(day, UPLOAD_MAX_BYTES);
  const dayText = body(day);
  const lowFit = secondsThatFit(dayLow, UPLOAD_MAX_BYTES);
  const notes: string[] = [
    `24 h at ${rate}/s is ${mib(dayText.length)} (${n0(dayText.length / (DAY + 2))} bytes a line) against the ` +
      `${mib(UPLOAD_MAX_BYTES)} upload limit: the longest that fits is ${duration(fit)}; ` +
      `at ${lowRate}/s, ${duration(lowFit)} fits (${mib(body(dayLow, lowFit).length)})`,
  ];
  console.log(`synthesized the outputs in ${msOrS(performance.now() - t0)}`);
  const cellOf = (label: string, output: Output, seconds: number, perSecond: number): Cell => ({
    label,
    seconds,
    perSecond,
    output,
    col: new Map(),
  });
  const warm = cellOf("60 s (2nd)", synthesize(60, rate, 2), 60, rate);
  const cells: Cell[] = [
    cellOf("60 s", short, 60, rate),
    cellOf("1 h", day, 3_600, rate),
    cellOf("6 h", day, 6 * 3_600, rate),
    cellOf(`${duration(fit)} (fits)`, day, fit, rate),
    cellOf(`${duration(lowFit)} at ${lowRate}/s`, dayLow, lowFit, lowRate),
  ];
  const ok = (c: Cell) => c.runId !== undefined;

  // --- upload ---
  const query = (c: Cell) =>
    new URLSearchParams({
      server: "go",
      name: `perflab-self ${c.label}`,
      durationSec: String(c.seconds - WARMUP_SEC),
      warmupSec: String(WARMUP_SEC),
      tool: "echo",
      arguments: JSON.stringify({ message: "hello" }),
      vus: String(VUS),
      k6Requests: String(c.output.measured.slice(0, c.seconds).reduce((a, b) => a + b, 0)),
    }).toString();
  const upload = async (c: Cell) => {
    const text = body(c.output, c.seconds);
    const rss = sampleRss(webPids(), ceiling, () => web!.child.kill("SIGKILL"));
    const reply = await send(port, "POST", `/api/v1/uploads?${query(c)}`, {
      body: text,
      type: "application/x-ndjson",
    });
    const { before, peak, tripped } = rss.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    return { reply, before, peak, after: rssBytes(webPids()), tripped, bytes: text.length };
  };
  // The route's first request loads its code: a 60 s upload nobody times.
  const warmed = await upload(warm);
  if (warmed.reply.status !== 202) throw new Error(`upload: ${warmed.reply.status} ${warmed.reply.text}`);
  warm.runId = JSON.parse(warmed.reply.text).runId;
  runIds.push(warm.runId!);
  await ingestUpload({ db, runId: warm.runId! });

  /** The web app's RSS growth per line in the largest upload so far: what a longer one would need. */
  let bytesPerLine = 0;
  let largest = 0;
  for (const c of cells) {
    const lines = c.seconds + 2;
    c.col.set("tool calls / s", n0(c.perSecond));
    c.col.set("lines", n0(lines));
    c.col.set("body", mib(body(c.output, c.seconds).length));
    // An upload's memory goes back only when V8 next collects: each long one starts on a fresh web app.
    if (rssBytes(webPids()) > 512 * MiB) {
      await restartWeb();
      const again = await upload(cellOf("warm-up", short, 60, rate));
      if (again.reply.status === 202) {
        const runId = JSON.parse(again.reply.text).runId as string;
        runIds.push(runId);
        await ingestUpload({ db, runId });
      }
    }
    const base = rssBytes(webPids());
    const predicted = base + bytesPerLine * lines;
    if (bytesPerLine > 0 && predicted > ceiling) {
      c.col.set("upload wall time", "skipped†");
      notes.push(
        `${c.label}: not uploaded: at ${kib(bytesPerLine)} of web RSS per line (the largest upload so far) ` +
          `it would need ~${mib(predicted)}, over the ${mib(ceiling)} this run allows the web app`,
      );
      continue;
    }
    const { reply, before, peak, after, tripped } = await upload(c);
    c.col.set("web RSS before → peak → 3 s after", `${mib(before)} → ${mib(peak)} → ${mib(after)}`);
    if (lines >= largest) {
      largest = lines;
      bytesPerLine = (peak - before) / lines;
    }
    c.col.set("web RSS growth / line", kib((peak - before) / lines));
    if (tripped) {
      c.col.set("upload wall time", `killed at ${mib(peak)} after ${msOrS(reply.ms)}†`);
      notes.push(`${c.label}: the web app passed ${mib(ceiling)} of RSS and was killed; restarted`);
      await restartWeb();
      continue;
    }
    if (reply.status !== 202) {
      c.col.set("upload wall time", `${reply.status || reply.error} after ${msOrS(reply.ms)}†`);
      notes.push(`${c.label}: POST /api/v1/uploads answered ${reply.status || reply.error}: ${reply.text}`);
      continue;
    }
    c.runId = JSON.parse(reply.text).runId as string;
    runIds.push(c.runId);
    c.col.set("upload wall time", msOrS(reply.ms));
    c.col.set("upload lines / s", n0(lines / (reply.ms / 1000)));
    const ti = performance.now();
    const ingested = await ingestUpload({ db, runId: c.runId });
    c.col.set("ingest wall time (worker's, here)", msOrS(performance.now() - ti));
    if (ingested.status !== "succeeded") {
      notes.push(`${c.label}: the ingest ended ${JSON.stringify(ingested)}`);
      continue;
    }
    const cell = await db.cell.findFirstOrThrow({ where: { runId: c.runId }, select: { id: true } });
    const [stored] = await db.$queryRaw<{ points: bigint; rollups: bigint; bytes: bigint }[]>`
      SELECT (SELECT count(*) FROM metric_points WHERE cell_id = ${cell.id}) AS points,
             (SELECT count(*) FROM metric_rollups WHERE cell_id = ${cell.id}) AS rollups,
             (SELECT coalesce(sum(pg_column_size(p.*)), 0) FROM metric_points p WHERE p.cell_id = ${cell.id})::bigint
               + (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM metric_rollups r WHERE r.cell_id = ${cell.id})::bigint
               AS bytes`;
    c.col.set(
      "rows stored (points + rollups)",
      `${n0(Number(stored!.points))} + ${n0(Number(stored!.rollups))}, ${mib(Number(stored!.bytes))}`,
    );
    // The rollups the upload ended with, written again here (same code) for their share of its time.
    const tr = performance.now();
    const rolled = await writeCellRollups(db, cell.id);
    c.col.set("of which rollups (re-run here)", rolled ? msOrS(performance.now() - tr) : "none (≤ 600 s)");
  }

  // 24 h at the full rate: larger than the limit, so refused (413) before it is buffered.
  {
    const rss = sampleRss(webPids(), ceiling, () => web!.child.kill("SIGKILL"));
    const reply = await send(port, "POST", `/api/v1/uploads?server=go&durationSec=${DAY - WARMUP_SEC}`, {
      body: dayText,
      type: "application/x-ndjson",
    });
    const { before, peak } = rss.stop();
    notes.push(
      `24 h at ${rate}/s (${mib(dayText.length)}) → ${reply.status || reply.error} in ${msOrS(reply.ms)}, ` +
        `web RSS ${mib(before)} → ${mib(peak)}`,
    );
  }
  // Reads run on a web app that is not still holding an upload's memory.
  const retained = rssBytes(webPids());
  if (retained > 512 * MiB) {
    notes.push(`the web app held ${mib(retained)} after the uploads; restarted it before the reads`);
    await restartWeb();
  }

  // --- read back ---
  for (const c of [warm, ...cells].filter(ok)) {
    const run = await timed(port, `/api/v1/runs/${c.runId}`, repeats);
    c.col.set("GET /api/v1/runs/:id", `${msOrS(run.ms)}, ${sized(run)}`);
    const events = await timed(port, `/api/v1/runs/${c.runId}/events`, repeats, { firstEvent: true });
    const snapshot = JSON.parse(events.text) as { points: Record<string, unknown[]> };
    const points = Math.max(...Object.values(snapshot.points).map((p) => p.length));
    c.col.set("run page series (events snapshot)", `${msOrS(events.ms)}, ${sized(events)}`);
    c.col.set("  points per cell", `${n0(points)} (cap ${n0(PAGE_POINTS)})`);
    if (points > PAGE_POINTS) notes.push(`${c.label}: the run page got ${points} points per cell`);
    const page = await timed(port, `/runs/${c.runId}`, repeats);
    c.col.set("/runs/:id HTML", `${msOrS(page.ms)}, ${sized(page)}`);
  }

  // --- reports ---
  for (const c of [warm, ...cells].filter(ok)) {
    const reply = await send(port, "POST", "/api/v1/reports", {
      body: JSON.stringify({ runId: c.runId, title: `perflab-self ${c.label}` }),
    });
    if (reply.status !== 201) throw new Error(`report: ${reply.status} ${reply.text}`);
    c.slug = JSON.parse(reply.text).slug as string;
    slugs.push(c.slug);
    c.col.set("POST /api/v1/reports", msOrS(reply.ms));
    const [size] = await db.$queryRaw<{ text: number; stored: number }[]>`
      SELECT octet_length(snapshot::text) AS text, pg_column_size(snapshot) AS stored
      FROM reports WHERE slug = ${c.slug}`;
    const json = await timed(port, `/api/v1/reports/${c.slug}`, repeats);
    const frozen = JSON.parse(json.text) as { snapshot: { points: Record<string, unknown[]> } };
    const points = Math.max(...Object.values(frozen.snapshot.points).map((p) => p.length));
    c.col.set("  snapshot", `${kib(size!.text)} (${kib(size!.stored)} stored), ${n0(points)} points / cell`);
    if (points > REPORT_POINTS) notes.push(`${c.label}: the report froze ${points} points per cell`);
    c.col.set("GET /api/v1/reports/:slug", `${msOrS(json.ms)}, ${sized(json)}`);
    const page = await timed(port, `/r/${c.slug}`, repeats);
    c.col.set("/r/:slug HTML", `${msOrS(page.ms)}, ${sized(page)}`);
  }

  // --- compare ---
  const compared: string[] = [];
  const compare = async (a: Cell, b: Cell) => {
    if (!ok(a) || !ok(b)) return;
    const page = await timed(port, `/compare?runs=${a.runId},${b.runId}`, repeats);
    const json = await timed(port, `/api/v1/comparison?runs=${a.runId},${b.runId}`, repeats);
    compared.push(
      `compare ${a.label} with ${b.label}: /compare ${msOrS(page.ms)}, ${sized(page)}; ` +
        `/api/v1/comparison ${msOrS(json.ms)}, ${sized(json)}`,
    );
  };
  await compare(cells[0]!, warm);
  await compare(cells[3]!, cells[2]!);

  // --- print ---
  const rows = [
    "tool calls / s",
    "lines",
    "body",
    "upload wall time",
    "upload lines / s",
    "web RSS before → peak → 3 s after",
    "web RSS growth / line",
    "rows stored (points + rollups)",
    "of which rollups (re-run here)",
    "GET /api/v1/runs/:id",
    "run page series (events snapshot)",
    "  points per cell",
    "/runs/:id HTML",
    "POST /api/v1/reports",
    "  snapshot",
    "GET /api/v1/reports/:slug",
    "/r/:slug HTML",
  ];
  const head = ["", ...cells.map((c) => c.label)];
  const table = [head, ...rows.map((row) => [row, ...cells.map((c) => c.col.get(row) ?? "—")])];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\nmachine: ${machine()}`);
  console.log(
    `started ${startedAt.toISOString()}, load average ${load0.map((l) => l.toFixed(2)).join(" ")} → ` +
      `${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (a shared machine slows every column alike only roughly: compare within one run)`,
  );
  console.log(
    `k6 output: ${VUS} VUs, ${WARMUP_SEC} s warm-up, latency 2–5 ms; GETs: median of ${repeats} after one ` +
      `untimed request; sizes decoded (and as sent, gzip)\n`,
  );
  console.log(line(table[0]!));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of table.slice(1)) console.log(line(r));
  console.log("");
  for (const c of compared) console.log(c);
  console.log(`\n${notes.join("\n")}`);
} finally {
  if (db) {
    await db.report.deleteMany({ where: { slug: { in: slugs } } }).catch(() => undefined);
    await db.run.deleteMany({ where: { id: { in: runIds } } }).catch(() => undefined);
    await db.$disconnect();
  }
  await (web as { stop: () => Promise<void> } | null)?.stop().catch(() => undefined);
  for (const service of services.reverse()) await service.stop().catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
}
