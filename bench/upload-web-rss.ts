/**
 * The web app's memory across the largest upload its limit allows. Against a real embedded Postgres
 * (durable, as the quick start runs it), Redis and the built web app (`next start`), it sends
 * POST /api/v1/uploads bodies of exactly the limit (PERFLAB_UPLOAD_MAX_BYTES, 1 GiB by default), each
 * streamed from this process with its length (never whole in memory on either side), and prints the
 * RSS of the web app's processes (VmRSS from /proc, sampled every 20 ms) before, at the peak and 5 s
 * after each. The goal: the RSS after the largest body within 100 MiB of where it started.
 *
 * "Where it started" is the web app after one small upload has loaded the route's code (its first
 * request compiles and caches what every later one reuses). The body is k6 `--out json` of perflab's
 * script, gzipped: one gzip member of `memberSeconds` synthetic seconds at 2,000 calls/s sent again
 * and again, then cut at the limit. The web app only stores a body (the worker reads it later), so
 * what the bytes hold does not change its work; no worker runs here, so none is ingested, and the
 * data dir goes at the end.
 *
 *   pnpm --filter @perflab/bench upload-web-rss [repeats=3] [limitMiB=1024] [memberSeconds=10]
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { freePort, startPostgres, startRedis, startWeb } from "../scripts/lib/services.ts";
import { machine } from "./lib.ts";
import { processTree, rssBytes, sampleRss } from "./procs.ts";
import { k6JsonBytes } from "./synthetic-k6-json.ts";

const [repeats = 3, limitMiB = 1024, memberSeconds = 10] = process.argv.slice(2).map(Number);
const MiB = 2 ** 20;
const limit = limitMiB * MiB;
const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `total` bytes of `member` repeated, 1 MiB at a time. */
function repeated(member: Buffer, total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const piece = Buffer.alloc(Math.min(MiB, total - sent));
      for (let at = 0; at < piece.length; ) {
        const from = (sent + at) % member.length;
        at += member.copy(piece, at, from, Math.min(member.length, from + piece.length - at));
      }
      sent += piece.length;
      this.push(piece);
    },
  });
}

function post(port: number, body: Readable, bytes: number): Promise<{ status: number; text: string }> {
  const query = new URLSearchParams({
    server: "go",
    format: "k6-json",
    name: "upload-web-rss",
    durationSec: String(memberSeconds - 2),
    warmupSec: "2",
  });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/api/v1/uploads?${query}`,
        headers: {
          "content-type": "application/x-ndjson",
          "content-encoding": "gzip",
          "content-length": bytes,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (d: string) => (text += d));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    body.pipe(request);
  });
}

const tmp = await mkdtemp(path.join(os.tmpdir(), "perflab-bench-upload-rss-"));
await chmod(tmp, 0o755);
const redis = await startRedis({ dir: path.join(tmp, "redis"), port: await freePort() });
const pg = await startPostgres({ dir: path.join(tmp, "pg"), port: await freePort(), durable: true });
const port = await freePort();
const web = await startWeb({
  databaseUrl: pg.url,
  redisUrl: redis.url,
  port,
  env: { PERFLAB_UPLOAD_MAX_BYTES: String(limit) },
});
const webPids = () => processTree(web.child.pid!);
try {
  const member = gzipSync(
    k6JsonBytes({ seconds: memberSeconds, perSecond: 2000, startMs: Date.UTC(2026, 0, 1) }),
  );
  console.log(
    `${machine()}; body ${mib(limit)} (a ${mib(member.length)} gzip member of ${memberSeconds} s, repeated)`,
  );
  const warm = await post(port, repeated(member, member.length), member.length);
  if (warm.status !== 202) throw new Error(`warm-up upload: ${warm.status} ${warm.text}`);
  await sleep(5_000);
  const start = rssBytes(webPids());
  console.log(`web RSS after one ${mib(member.length)} upload (where it starts): ${mib(start)}`);
  let after = start;
  for (let i = 1; i <= repeats; i++) {
    const rss = sampleRss(webPids(), Number.MAX_SAFE_INTEGER, () => undefined);
    const t0 = performance.now();
    const reply = await post(port, repeated(member, limit), limit);
    const seconds = (performance.now() - t0) / 1000;
    const { before, peak } = rss.stop();
    if (reply.status !== 202) throw new Error(`upload ${i}: ${reply.status} ${reply.text}`);
    await sleep(5_000);
    after = rssBytes(webPids());
    console.log(
      `upload ${i}: 202 in ${seconds.toFixed(1)} s (${(limit / MiB / seconds).toFixed(0)} MiB/s); ` +
        `web RSS ${mib(before)} → peak ${mib(peak)} → 5 s after ${mib(after)} (${after >= start ? "+" : ""}${mib(after - start)} from the start)`,
    );
  }
  const growth = after - start;
  console.log(
    `after ${repeats} × ${mib(limit)}: ${mib(growth)} from where it started (goal: within 100 MiB) — ${growth <= 100 * MiB ? "met" : "missed"}`,
  );
} finally {
  await web.stop();
  await pg.stop();
  await redis.stop();
  await rm(tmp, { recursive: true, force: true });
}
