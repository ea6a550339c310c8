/**
 * The large uploads a 24 h soak at `perSecond` calls/s makes, through the web app's store and the
 * worker's ingest as they run (in this process): perflab's own output of `perflabSeconds` (a day by
 * default: all of it; 0 leaves it out) and k6's `--out json` of `jsonSeconds`, gzipped as it is sent
 * (a day of it is tens of GiB: a shorter soak, extrapolated). Prints for each the bytes sent, the
 * process's RSS before, at its peak during and after the store (the web app's memory, which must
 * stay flat), and the ingest's time and RSS peak; for `--out json` first the decoding alone
 * (decodeUploadBody from the file, no database): lines/s and MiB/s, beside line-by-line reading.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { ZUploadQuery } from "@perflab/contracts";
import { createDb, type Db } from "@perflab/db";
import { startTestPostgres } from "@perflab/db/testing";
import { decodeUploadBody, K6JsonDecoder, linesOf, plainBody, uploadDecoderOptions } from "@perflab/metrics";
import { createUpload } from "@perflab/web/testing";
import { ingestUpload } from "@perflab/worker/testing";
import { machine, watchRss } from "./lib.ts";
import { writeGzippedK6Json } from "./synthetic-k6-json.ts";
import { body, synthesize, WARMUP_SEC } from "./synthetic-output.ts";

const mib = (n: number) => (n / 2 ** 20).toFixed(1);
const rssNow = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};

/** A body as a client sends it, 64 KiB at a time. */
function streamed(bytes: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
}

async function measure(db: Db, label: string, seconds: number, stream: ReadableStream<Uint8Array>) {
  const query = { server: "go", durationSec: String(seconds - WARMUP_SEC), warmupSec: String(WARMUP_SEC) };
  const rss = watchRss();
  const t0 = performance.now();
  const { runId } = await createUpload({
    db,
    query,
    body: stream,
    origin: "http://127.0.0.1",
    enqueue: async () => undefined,
    maxBytes: 2 ** 40,
  });
  const storeS = (performance.now() - t0) / 1000;
  const peak = rss.stop();
  const after = rssNow();
  const upload = await db.upload.findUniqueOrThrow({ where: { runId }, select: { bytes: true } });
  console.log(
    `${label}: stored ${mib(Number(upload.bytes))} MiB in ${storeS.toFixed(1)} s; RSS before ${mib(rss.before)} MiB, ` +
      `peak during ${mib(peak)} MiB (+${mib(peak - rss.before)}), after ${mib(after)} MiB`,
  );
  const ingestRss = watchRss();
  const i0 = performance.now();
  const outcome = await ingestUpload({ db, runId, rollupMinSeconds: Number.MAX_SAFE_INTEGER });
  const ingestS = (performance.now() - i0) / 1000;
  const ingestPeak = ingestRss.stop();
  if (outcome.status !== "succeeded") throw new Error(`${label} ingest: ${JSON.stringify(outcome)}`);
  const rows = await db.metricPoint.count({ where: { cell: { runId } } });
  const summary = await db.cellSummary.findFirstOrThrow({ where: { cell: { runId } } });
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { spec: true } });
  const lines = (run.spec as { upload?: { lines?: number } }).upload?.lines ?? 0;
  console.log(
    `${label}: ingested in ${ingestS.toFixed(1)} s (${(seconds / ingestS).toFixed(0)} soak seconds/s, ` +
      `${(lines / ingestS / 1e6).toFixed(2)} M lines/s), RSS peak +${mib(ingestPeak - ingestRss.before)} MiB; ` +
      `${rows} seconds, ${summary.requests} measured requests, p99 ${summary.latencyP99Ms} ms`,
  );
  return { storeS, ingestS, bytes: Number(upload.bytes) };
}

/** The `--out json` body decoded from the file as the worker decodes it, timed, with its measured requests. */
async function decodeFile(file: string, meta: ReturnType<typeof ZUploadQuery.parse>, lineByLine: boolean) {
  const bytes = (await stat(file)).size;
  const t0 = performance.now();
  const chunks = createReadStream(file, { highWaterMark: 2 ** 20 });
  let lines: number;
  let requests: number;
  if (lineByLine) {
    // How the body was read before blocks: each line its own string, fed one at a time.
    const decoder = new K6JsonDecoder(uploadDecoderOptions(meta, "k6-json"));
    for await (const line of linesOf((await plainBody(chunks)).body)) decoder.feed(line);
    const output = decoder.end();
    lines = output.lines;
    requests = output.aggregator.summary({ durationSec: meta.durationSec }).requests;
  } else {
    const record = await decodeUploadBody(meta, chunks, bytes);
    lines = record.spec.upload.lines ?? 0;
    requests = record.summary.requests;
  }
  return { seconds: (performance.now() - t0) / 1000, lines, requests, bytes };
}

/** The decoding's rate alone (no database): lines/s and MiB/s gzipped, by blocks and line by line. */
async function decodeRate(file: string, seconds: number, raw: number, lineByLine: boolean) {
  const meta = ZUploadQuery.parse({
    server: "go",
    durationSec: String(seconds - WARMUP_SEC),
    warmupSec: String(WARMUP_SEC),
  });
  const rates: Record<string, number> = {};
  for (const byLine of lineByLine ? [false, true] : [false]) {
    const label = byLine ? "line by line" : "decodeUploadBody";
    const run = await decodeFile(file, meta, byLine);
    rates[label] = run.seconds;
    console.log(
      `decode (${label}): ${run.seconds.toFixed(1)} s, ${(run.lines / run.seconds / 1e6).toFixed(2)} M lines/s, ` +
        `${mib(run.bytes / run.seconds)} MiB/s gzipped, ${mib(raw / run.seconds)} MiB/s raw; ${run.requests} measured requests`,
    );
  }
  return rates.decodeUploadBody!;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(", ");

export async function soak({
  perSecond,
  perflabSeconds,
  jsonSeconds,
  lineByLine = true,
}: {
  perSecond: number;
  perflabSeconds: number;
  jsonSeconds: number;
  /** Also decode the file line by line, as before blocks (twice the decoding's time). */
  lineByLine?: boolean;
}) {
  console.log(`machine: ${machine()}; ${new Date().toISOString()}; load average ${load()}`);
  const dir = await mkdtemp(path.join(tmpdir(), "perflab-soak-"));
  const file = path.join(dir, "out.json.gz");
  const g0 = performance.now();
  const { raw } = await writeGzippedK6Json(
    { seconds: jsonSeconds, perSecond, startMs: Date.now() - (jsonSeconds + 60) * 1000 },
    file,
  );
  const gzipped = (await stat(file)).size;
  console.log(
    `k6 --out json: ${jsonSeconds} s at ${perSecond} calls/s is ${mib(raw)} MiB raw, ${mib(gzipped)} MiB gzipped ` +
      `(written in ${((performance.now() - g0) / 1000).toFixed(0)} s)`,
  );
  const decodeS = await decodeRate(file, jsonSeconds, raw, lineByLine);
  const pg = await startTestPostgres({ migrate: true });
  const db = createDb(pg.url);
  try {
    // Prisma's query compiler and the pool load on the first query: not what an upload holds.
    const warm = Buffer.from(body(synthesize(30, 10, 1)));
    await measure(db, "(untimed warm-up)", 30, streamed(warm));
    if (perflabSeconds > 0) {
      const bytes = Buffer.from(body(synthesize(perflabSeconds, perSecond, 7)));
      console.log(`perflab output: ${perflabSeconds} s at ~${perSecond} calls/s, ${mib(bytes.length)} MiB`);
      await measure(db, "perflab", perflabSeconds, streamed(bytes));
    }
    const fileStream = Readable.toWeb(createReadStream(file, { highWaterMark: 64 * 1024 }));
    const run = await measure(
      db,
      "k6 --out json (gzip)",
      jsonSeconds,
      fileStream as ReadableStream<Uint8Array>,
    );
    const day = 86_400 / jsonSeconds;
    const hours = (s: number) => ((s * day) / 3600).toFixed(1);
    console.log(
      `24 h extrapolated (x${day.toFixed(0)}): ${((raw * day) / 2 ** 30).toFixed(0)} GiB raw, ` +
        `${((gzipped * day) / 2 ** 30).toFixed(1)} GiB gzipped, decoded in ${hours(decodeS)} h, ` +
        `stored in ${hours(run.storeS)} h, ingested in ${hours(run.ingestS)} h; load average ${load()}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await db.$disconnect();
    await pg.stop();
  }
}
