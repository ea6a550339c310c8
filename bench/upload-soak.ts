/**
 * The large uploads a 24 h soak at `perSecond` calls/s makes, through the web app's store and the
 * worker's ingest as they run (in this process): perflab's own output of `perflabSeconds` (a day by
 * default: all of it) and k6's `--out json` of `jsonSeconds`, gzipped as it is sent (a day of it is
 * tens of GiB: a shorter soak, extrapolated). Prints for each the bytes sent, the process's RSS
 * before, at its peak during and after the store (the web app's memory, which must stay flat), and
 * the ingest's time and RSS peak.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createDb, type Db } from "@perflab/db";
import { startTestPostgres } from "@perflab/db/testing";
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
  console.log(
    `${label}: ingested in ${ingestS.toFixed(1)} s (${(seconds / ingestS).toFixed(0)} soak seconds/s), ` +
      `RSS peak +${mib(ingestPeak - ingestRss.before)} MiB; ${rows} seconds, ${summary.requests} measured requests, ` +
      `p99 ${summary.latencyP99Ms} ms`,
  );
  return { storeS, ingestS, bytes: Number(upload.bytes) };
}

export async function soak({
  perSecond,
  perflabSeconds,
  jsonSeconds,
}: {
  perSecond: number;
  perflabSeconds: number;
  jsonSeconds: number;
}) {
  console.log(`machine: ${machine()}`);
  const pg = await startTestPostgres({ migrate: true });
  const db = createDb(pg.url);
  try {
    // Prisma's query compiler and the pool load on the first query: not what an upload holds.
    const warm = Buffer.from(body(synthesize(30, 10, 1)));
    await measure(db, "(untimed warm-up)", 30, streamed(warm));
    const output = body(synthesize(perflabSeconds, perSecond, 7));
    const bytes = Buffer.from(output);
    console.log(`perflab output: ${perflabSeconds} s at ~${perSecond} calls/s, ${mib(bytes.length)} MiB`);
    await measure(db, "perflab", perflabSeconds, streamed(bytes));
    const dir = await mkdtemp(path.join(tmpdir(), "perflab-soak-"));
    const file = path.join(dir, "out.json.gz");
    const { raw } = await writeGzippedK6Json(
      { seconds: jsonSeconds, perSecond, startMs: Date.now() - (jsonSeconds + 60) * 1000 },
      file,
    );
    const gzipped = (await stat(file)).size;
    const fileStream = Readable.toWeb(createReadStream(file, { highWaterMark: 64 * 1024 }));
    const run = await measure(
      db,
      "k6 --out json (gzip)",
      jsonSeconds,
      fileStream as ReadableStream<Uint8Array>,
    );
    await rm(dir, { recursive: true, force: true });
    const day = 86_400 / jsonSeconds;
    console.log(
      `k6 --out json: ${jsonSeconds} s at ${perSecond} calls/s is ${mib(raw)} MiB raw, ${mib(gzipped)} MiB gzipped; ` +
        `24 h extrapolated: ${((raw * day) / 2 ** 30).toFixed(0)} GiB raw, ` +
        `${((gzipped * day) / 2 ** 30).toFixed(1)} GiB gzipped, stored in ${((run.storeS * day) / 3600).toFixed(1)} h, ` +
        `ingested in ${((run.ingestS * day) / 3600).toFixed(1)} h`,
    );
  } finally {
    await db.$disconnect();
    await pg.stop();
  }
}
