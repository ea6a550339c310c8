/** HTTP over loopback only, timed, with the bytes a browser would receive (gzip) and decode. */
import http from "node:http";
import zlib from "node:zlib";

const MiB = 2 ** 20;

export type Reply = {
  status: number;
  ms: number;
  wireBytes: number;
  gzip: boolean;
  text: string;
  error?: string;
};

export function send(
  port: number,
  method: string,
  pathname: string,
  options: { body?: string; type?: string; firstEvent?: boolean } = {},
): Promise<Reply> {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string | number> = { "accept-encoding": "gzip" };
    if (options.body !== undefined) {
      headers["content-type"] = options.type ?? "application/json";
      headers["content-length"] = Buffer.byteLength(options.body);
    }
    let settled = false;
    const done = (reply: Reply) => {
      if (settled) return;
      settled = true;
      resolve(reply);
    };
    const req = http.request({ host: "127.0.0.1", port, method, path: pathname, headers, agent: false });
    req.on("error", (error) =>
      done({
        status: 0,
        ms: performance.now() - started,
        wireBytes: 0,
        gzip: false,
        text: "",
        error: error.message,
      }),
    );
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let wireBytes = 0;
      let searchFrom = 0;
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        wireBytes += chunk.length;
        if (!options.firstEvent) return;
        // The first `data:` frame is the snapshot; stop reading (the stream stays open) once it ends.
        const text = Buffer.concat(chunks).toString("utf8");
        const frame = text.indexOf("data: ");
        const end = frame < 0 ? -1 : text.indexOf("\n\n", Math.max(frame, searchFrom));
        searchFrom = Math.max(0, text.length - 1);
        if (end >= 0) {
          done({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            wireBytes,
            gzip: false,
            text: text.slice(frame + 6, end),
          });
          req.destroy();
        }
      });
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const gzip = res.headers["content-encoding"] === "gzip";
        done({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          wireBytes,
          gzip,
          text: (gzip ? zlib.gunzipSync(raw) : raw).toString("utf8"),
        });
      });
      res.on("error", () => undefined);
    });
    req.end(options.body);
  });
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** One untimed request (code and caches warm), then `repeats` timed ones: the median and the last reply. */
export async function timed(
  port: number,
  pathname: string,
  repeats: number,
  options: { firstEvent?: boolean } = {},
) {
  const first = await send(port, "GET", pathname, options);
  if (first.status !== 200) throw new Error(`GET ${pathname}: ${first.status} ${first.text.slice(0, 300)}`);
  const times: number[] = [];
  let last = first;
  for (let i = 0; i < repeats; i++) {
    last = await send(port, "GET", pathname, options);
    times.push(last.ms);
  }
  return {
    ms: median(times),
    gzip: last.gzip,
    wireBytes: last.wireBytes,
    bytes: Buffer.byteLength(last.text),
    text: last.text,
  };
}

export const n0 = (x: number) => Math.round(x).toLocaleString("en-US");
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 2 : 1)} MiB`;
export const kib = (bytes: number) => (bytes < MiB ? `${(bytes / 1024).toFixed(0)} KiB` : mib(bytes));
export const msOrS = (ms: number) =>
  ms < 1_000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(1)} s`;
export const duration = (seconds: number) => {
  if (seconds < 3_600) return `${seconds} s`;
  const h = Math.floor(seconds / 3_600);
  const m = Math.round((seconds % 3_600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
};
export const sized = (r: { gzip: boolean; wireBytes: number; bytes: number }) =>
  r.gzip ? `${kib(r.bytes)} (${kib(r.wireBytes)} gzip)` : kib(r.bytes);
