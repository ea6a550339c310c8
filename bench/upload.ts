/**
 * What an uploaded k6 output (POST /api/v1/uploads) costs, on synthetic per-second lines at ~200
 * tool calls a second, in this process:
 *   store   createUpload as the route calls it, the body streamed in 64 KiB pieces into a throwaway
 *           embedded Postgres: wall time, MiB/s and this process's RSS peak above where it began,
 *           which must stay flat (about a 1 MiB chunk, whatever the upload's size);
 *   ingest  what the worker then does (ingestUpload: the shared decoder fed line by line from the
 *           stored chunks, one transaction of rows): wall time, lines/s, RSS growth per line, then
 *           the rollups the upload ends with (writeCellRollups, timed on their own);
 *   parse   parseK6Output alone: per line and in all;
 *   mean    the mean of a second's histogram: hdr-histogram-js's `mean` vs histogramMean.
 * The first repeat is the one to read for the ingest's RSS: later ones start on a grown heap (the
 * store's come after an untimed store of the same body, which loads Prisma and grows V8's heap
 * once: 50-80 MiB, whatever the body's size). Prints figures;
 * asserts only that both means agree, that every second was stored and that the store's RSS growth
 * stays under 64 MiB.
 *
 *   pnpm --filter @perflab/bench upload [seconds=3600] [repeats=3]
 *
 * `soak` instead: the large uploads of a 24 h soak (upload-soak.ts), perflab's output and k6's
 * --out json gzipped, with the web app's RSS before, during and after and the ingest's time:
 *
 *   pnpm --filter @perflab/bench upload soak [perSecond=2000] [perflabSeconds=86400] [jsonSeconds=300] [lineByLine=1]
 */

import { createDb, type Db, writeCellRollups } from "@perflab/db";
import { startTestPostgres } from "@perflab/db/testing";
import { decodeHistogram, type Histogram, histogramMean, parseK6Output } from "@perflab/metrics";
import { createUpload } from "@perflab/web/testing";
import { ingestUpload } from "@perflab/worker/testing";
import { machine, watchRss } from "./lib.ts";
import { body, synthesize, WARMUP_SEC } from "./synthetic-output.ts";

if (process.argv[2] === "soak") {
  const [perSecond = 2000, perflabSeconds = 86_400, jsonSeconds = 300, lineByLine = 1] = process.argv
    .slice(3)
    .map(Number);
  const lines = lineByLine !== 0;
  await (await import("./upload-soak.ts")).soak({
    perSecond,
    perflabSeconds,
    jsonSeconds,
    lineByLine: lines,
  });
  process.exit(0);
}
const [seconds = 3600, repeats = 3] = process.argv.slice(2).map(Number);
const PER_SECOND = 200;
/**
 * The store's RSS growth allowed whatever the body's size: 1 MiB chunks and the garbage of their
 * inserts, until V8 collects it.
 */
const STORE_RSS_LIMIT = 64 * 2 ** 20;

const output = synthesize(seconds, PER_SECOND, 7);
const bytes = Buffer.from(body(output));
const measuredSeconds = seconds - WARMUP_SEC;
/** The tool calls' histogram of each of the first 2,000 seconds. */
const encoded = output.lines
  .slice(0, 2_000)
  .map((line) => (JSON.parse(line) as { groups: { hist: string }[] }).groups.at(-1)!.hist);
const mib = (n: number) => (n / 2 ** 20).toFixed(1);

/** The body as a client sends it: 64 KiB at a time. */
const streamed = (bytes: Buffer) => {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
};

const store = (db: Db, bytes: Buffer) =>
  createUpload({
    db,
    query: {
      server: "go",
      scenario: "mcp-tool-call",
      durationSec: String(measuredSeconds),
      warmupSec: String(WARMUP_SEC),
    },
    body: streamed(bytes),
    origin: "http://127.0.0.1",
    enqueue: async () => undefined,
  });

async function storeOnce(db: Db, r: number): Promise<string> {
  const rss = watchRss();
  const t0 = performance.now();
  const { runId } = await store(db, bytes);
  const s = (performance.now() - t0) / 1000;
  const grown = rss.stop() - rss.before;
  console.log(
    `store #${r}: ${s.toFixed(1)} s, ${mib(bytes.length / s)} MiB/s, RSS ${mib(rss.before)} MiB, peak +${mib(grown)} MiB`,
  );
  if (grown > STORE_RSS_LIMIT) throw new Error(`the store grew RSS by ${mib(grown)} MiB`);
  return runId;
}

async function ingestOnce(db: Db, r: number, runId: string): Promise<void> {
  const rss = watchRss();
  const t0 = performance.now();
  const outcome = await ingestUpload({ db, runId, rollupMinSeconds: Number.MAX_SAFE_INTEGER });
  const ms = performance.now() - t0;
  const peak = rss.stop();
  if (outcome.status !== "succeeded") throw new Error(`ingest: ${JSON.stringify(outcome)}`);
  const rows = await db.metricPoint.count({ where: { cell: { runId } } });
  if (rows !== seconds) throw new Error(`stored ${rows} seconds of ${seconds}`);
  const { id: cellId } = await db.cell.findFirstOrThrow({ where: { runId }, select: { id: true } });
  const r0 = performance.now();
  const rollups = await writeCellRollups(db, cellId);
  const rollupMs = performance.now() - r0;
  console.log(
    `ingest #${r}: ${(ms / 1000).toFixed(1)} s, ${Math.round(seconds / (ms / 1000))} lines/s, ` +
      `RSS ${mib(rss.before)} → peak ${mib(peak)} MiB (+${((peak - rss.before) / seconds / 1024).toFixed(1)} KiB a line), ` +
      `${rows} rows; then its ${rollups} rollups in ${(rollupMs / 1000).toFixed(1)} s`,
  );
}

console.log(`machine: ${machine()}`);
console.log(`output: ${seconds} s at ~${PER_SECOND} calls/s, ${mib(bytes.length)} MiB`);
const pg = await startTestPostgres({ migrate: true });
const db = createDb(pg.url);
try {
  // Prisma's query compiler and the pool load on the first query, and V8 sizes its heap for the
  // chunks' garbage on the first large body: not what an upload holds, so one store goes untimed.
  await db.run.deleteMany({ where: { id: (await store(db, bytes)).runId } });
  for (let r = 1; r <= repeats; r++) await ingestOnce(db, r, await storeOnce(db, r));
} finally {
  await db.$disconnect();
  await pg.stop();
}

const text = bytes.toString("utf8");
for (let r = 1; r <= repeats; r++) {
  const t0 = performance.now();
  const out = parseK6Output(text, { measuredSeconds });
  const ms = performance.now() - t0;
  console.log(
    `parse #${r}: ${(ms / 1000).toFixed(2)} s, ${((ms * 1000) / seconds).toFixed(0)} µs a line ` +
      `(${out.points.length} points, ${out.aggregator.summary({ durationSec: measuredSeconds }).requests} requests)`,
  );
}

const histograms = encoded.map(decodeHistogram);
const time = (mean: (h: Histogram) => number) => {
  const t0 = performance.now();
  let sum = 0;
  for (const h of histograms) sum += mean(h);
  return { us: ((performance.now() - t0) * 1000) / histograms.length, sum };
};
for (let r = 1; r <= repeats; r++) {
  const library = time((h) => h.mean);
  const direct = time(histogramMean);
  if (library.sum !== direct.sum) throw new Error(`the means differ: ${library.sum} vs ${direct.sum}`);
  console.log(
    `mean of a second's histogram #${r}: hdr-histogram-js ${library.us.toFixed(0)} µs, ` +
      `histogramMean ${direct.us.toFixed(0)} µs (${histograms.length} histograms, same sums)`,
  );
}
