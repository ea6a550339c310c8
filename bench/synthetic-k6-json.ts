/**
 * A synthetic `k6 run --out json` of perflab's MCP script, streamed: every sample k6 writes per tool
 * call (nine http_req_* Points and four per iteration), never whole in memory, so a day of it can be
 * generated and gzipped to a file.
 */
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { WARMUP_SEC } from "./synthetic-output.ts";

/** What k6 writes per HTTP request besides its count and duration (timings of its phases, failed). */
const TIMINGS = ["http_req_blocked", "http_req_connecting", "http_req_tls_handshaking", "http_req_sending"];

export type K6JsonSoak = { seconds: number; perSecond: number; startMs: number };

function* lines({ seconds, perSecond, startMs }: K6JsonSoak): Generator<string> {
  const tags = (phase: string) =>
    `{"expected_response":"true","group":"","phase":"${phase}","method":"tools/call","tool":"echo","proto":"HTTP/1.1","scenario":"mcp","status":"200","url":"http://127.0.0.1:8080/mcp"}`;
  const point = (metric: string, time: string, value: number, tagJson: string) =>
    `{"metric":"${metric}","type":"Point","data":{"time":"${time}","value":${value},"tags":${tagJson}}}\n`;
  for (let s = 0; s < seconds; s++) {
    const phase = s < WARMUP_SEC ? "warmup" : "measure";
    const tagJson = tags(phase);
    const iterTags = `{"group":"","phase":"${phase}","scenario":"mcp"}`;
    let chunk = "";
    for (let i = 0; i < perSecond; i++) {
      const ms = startMs + s * 1000 + Math.floor((i * 1000) / perSecond);
      const time = `${new Date(ms).toISOString().slice(0, 23)}${String(i % 1000).padStart(6, "0")}Z`;
      const duration = 2 + ((i * 7919) % 3000) / 1000 + (i % 200 === 0 ? 20 : 0);
      chunk += point("http_reqs", time, 1, tagJson);
      chunk += point("http_req_duration", time, duration, tagJson);
      for (const metric of TIMINGS) chunk += point(metric, time, 0, tagJson);
      chunk += point("http_req_waiting", time, duration - 0.05, tagJson);
      chunk += point("http_req_receiving", time, 0.03, tagJson);
      chunk += point("http_req_failed", time, 0, tagJson);
      chunk += point("data_sent", time, 350, iterTags);
      chunk += point("data_received", time, 310, iterTags);
      chunk += point("iterations", time, 1, iterTags);
      chunk += point("iteration_duration", time, duration + 0.1, iterTags);
    }
    chunk += point("vus", new Date(startMs + s * 1000).toISOString(), 10, "{}");
    yield chunk;
  }
}

/** The soak's --out json as one Buffer: for a short one (a few seconds at 2,000 calls/s is tens of MiB). */
export function k6JsonBytes(soak: K6JsonSoak): Buffer {
  return Buffer.concat([...lines(soak)].map((chunk) => Buffer.from(chunk)));
}

/**
 * Writes the soak's --out json gzipped (`gzip out.json`, level 6) to `file`, as a CI job would have it
 * before sending: generated apart from the upload, so the upload's figures are the lab's alone.
 */
export async function writeGzippedK6Json(soak: K6JsonSoak, file: string): Promise<{ raw: number }> {
  let raw = 0;
  const source = Readable.from(
    (function* () {
      for (const chunk of lines(soak)) {
        raw += Buffer.byteLength(chunk);
        yield chunk;
      }
    })(),
  );
  await pipeline(source, createGzip({ level: 6 }), createWriteStream(file));
  return { raw };
}
