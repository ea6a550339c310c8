/** Lines as `k6 run --out json` writes them, for tests and benchmarks. */

const iso = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("Z", "123Z")
    .replace(/\.(\d{3})123Z/, ".$1456789Z");

/** One line as `k6 run --out json` writes it. */
export function point(metric: string, ms: number, value: number, tags: Record<string, string> = {}): string {
  return JSON.stringify({ metric, type: "Point", data: { time: iso(ms), value, tags } });
}

/** A request's samples: its count, duration and failure flag under the same tags. */
export function request(
  ms: number,
  durationMs: number,
  tags: Record<string, string>,
  failed = false,
): string[] {
  return [
    point("http_reqs", ms, 1, tags),
    point("http_req_duration", ms, durationMs, tags),
    point("http_req_failed", ms, failed ? 1 : 0, tags),
    point("http_req_waiting", ms, durationMs, tags),
  ];
}
