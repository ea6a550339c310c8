/** Synthetic perflab k6 outputs for the benches that upload them (perflab-self, upload). */
import { createLatencyHistogram, encodeHistogram } from "@perflab/metrics";

/** Seconds tagged warm-up at the start of a synthetic output. */
export const WARMUP_SEC = 5;
/** VUs (kept sessions) of a synthetic output. */
export const VUS = 10;

/** mulberry32: the same figures on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export type Output = {
  startLine: string;
  /** The interval lines, one per second, in order. */
  lines: string[];
  /** Requests tagged phase=measure in each line (k6's http_reqs{phase:measure} over a prefix). */
  measured: number[];
};

export const END_LINE = JSON.stringify({ type: "end" });

/**
 * `seconds` interval lines at about `perSecond` tool calls a second (±5 %), 10 kept sessions
 * (initialize and notifications/initialized in the first second), latency 2–5 ms with a 0.5 % tail
 * up to 25 ms, the first WARMUP_SEC seconds tagged warm-up.
 */
export function synthesize(seconds: number, perSecond: number, seed: number): Output {
  const rand = prng(seed);
  const latency = () => {
    const body = 2_000 + (3_000 * (rand() + rand() + rand())) / 3;
    return Math.round(rand() < 0.995 ? body : body + 20_000 * rand());
  };
  const hist = createLatencyHistogram();
  const encoded = (count: number) => {
    hist.reset();
    for (let i = 0; i < count; i++) hist.recordValue(latency());
    return encodeHistogram(hist);
  };
  const startS = Math.floor(Date.now() / 1000) - seconds - 60;
  const lines: string[] = [];
  const measured: number[] = [];
  for (let s = 0; s < seconds; s++) {
    const phase = s < WARMUP_SEC ? "warmup" : "measure";
    const calls = Math.round(perSecond * (0.95 + 0.1 * rand()));
    const group = (method: string, tool: string, requests: number) => ({
      phase,
      method,
      tool,
      requests,
      failed: 0,
      opErrors: 0,
      hist: encoded(requests),
    });
    const groups = [
      ...(s === 0 ? [group("initialize", "", VUS), group("notifications/initialized", "", VUS)] : []),
      group("tools/call", "echo", calls),
    ];
    const requests = groups.reduce((a, g) => a + g.requests, 0);
    lines.push(
      JSON.stringify({
        type: "interval",
        t: startS + s,
        groups,
        iterations: calls,
        dropped: 0,
        dataSent: requests * 350,
        dataReceived: requests * 310,
        vus: VUS,
      }),
    );
    measured.push(phase === "measure" ? requests : 0);
  }
  return { startLine: JSON.stringify({ type: "start", t: startS * 1000, k6: "k6 v1.8.1" }), lines, measured };
}

/** The NDJSON of the output's first `n` seconds (k6's file has a trailing newline). */
export function body(output: Output, n = output.lines.length): string {
  return `${[output.startLine, ...output.lines.slice(0, n), END_LINE].join("\n")}\n`;
}
