/**
 * What the web app spends on an uploaded k6 output (POST /api/v1/uploads), on synthetic per-second
 * lines at ~200 tool calls a second, in this process:
 *   store   createUpload as the route calls it, into a throwaway embedded Postgres: wall time,
 *           lines/s and this process's RSS peak above where it began (the first repeat is the one
 *           to read: later ones start on a grown heap), then the rollups the upload ends with
 *           (writeCellRollups, timed on their own);
 *   parse   parseK6Output alone: per line and in all;
 *   mean    the mean of a second's histogram: hdr-histogram-js's `mean` vs histogramMean.
 * Prints figures; asserts only that both means agree and that every second was stored.
 *
 *   pnpm --filter @perflab/bench upload [seconds=3600] [repeats=3]
 */

import { createDb, writeCellRollups } from "@perflab/db";
import { startTestPostgres } from "@perflab/db/testing";
import { decodeHistogram, type Histogram, histogramMean } from "@perflab/metrics";
import { createUpload, parseK6Output } from "../apps/web/src/server/operations/create-upload.ts";
import { machine, watchRss } from "./lib.ts";
import { body, synthesize, WARMUP_SEC } from "./synthetic-output.ts";

const [seconds = 3600, repeats = 3] = process.argv.slice(2).map(Number);
const PER_SECOND = 200;

const output = synthesize(seconds, PER_SECOND, 7);
const text = body(output);
const measuredSeconds = seconds - WARMUP_SEC;
/** The tool calls' histogram of each of the first 2,000 seconds. */
const encoded = output.lines
  .slice(0, 2_000)
  .map((line) => (JSON.parse(line) as { groups: { hist: string }[] }).groups.at(-1)!.hist);

console.log(`machine: ${machine()}`);
console.log(`output: ${seconds} s at ~${PER_SECOND} calls/s, ${(text.length / 2 ** 20).toFixed(1)} MiB`);
const pg = await startTestPostgres({ migrate: true });
const db = createDb(pg.url);
try {
  for (let r = 1; r <= repeats; r++) {
    const rss = watchRss();
    const { before } = rss;
    const t0 = performance.now();
    const { runId } = await createUpload({
      db,
      query: {
        server: "go",
        scenario: "mcp-tool-call",
        durationSec: String(measuredSeconds),
        warmupSec: String(WARMUP_SEC),
      },
      body: text,
      origin: "http://127.0.0.1",
      rollupMinSeconds: Number.MAX_SAFE_INTEGER,
    });
    const ms = performance.now() - t0;
    const peak = rss.stop();
    const rows = await db.metricPoint.count({ where: { cell: { runId } } });
    if (rows !== seconds) throw new Error(`stored ${rows} seconds of ${seconds}`);
    const { id: cellId } = await db.cell.findFirstOrThrow({ where: { runId }, select: { id: true } });
    const r0 = performance.now();
    const rollups = await writeCellRollups(db, cellId);
    const rollupMs = performance.now() - r0;
    console.log(
      `store #${r}: ${(ms / 1000).toFixed(1)} s, ${Math.round(seconds / (ms / 1000))} lines/s, ` +
        `RSS ${(before / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB ` +
        `(+${((peak - before) / seconds / 1024).toFixed(1)} KiB a line), ${rows} rows; ` +
        `then its ${rollups} rollups in ${(rollupMs / 1000).toFixed(1)} s`,
    );
  }
} finally {
  await db.$disconnect();
  await pg.stop();
}

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
