import http from "node:http";
import { longestPauseSincePrevious, type ResourceSample } from "@perflab/metrics";
import type { RunningServer } from "../drivers/types.ts";
import { hostCpuTimes } from "../proc.ts";

type TimedCpu = { cpuSeconds: number; rssBytes: number; at?: number; fds?: number | null };

type Reading = {
  at: number;
  server: TimedCpu | null;
  k6: TimedCpu | null;
  host: { busy: number; total: number } | null;
};

/**
 * Samples server, load generator and host once a second. CPU % is per core (100 = one core busy,
 * as in `docker stats`); host CPU % is of the whole machine (0–100).
 */
export function startSampler(input: {
  server: RunningServer;
  /** The load generator's cumulative CPU seconds and memory, wherever it runs. */
  k6Resources: () => Promise<TimedCpu | null>;
  /** The server's /debug/runtime now (fetched here, or the latest a remote probe saw). */
  runtime?: () => Promise<unknown>;
  /** The server machine's busy and total jiffies; default: this machine's. */
  hostCpu?: () => Promise<{ busy: number; total: number } | null>;
  onSample: (sample: ResourceSample) => void;
  intervalMs?: number;
}): { stop: () => Promise<void> } {
  const intervalMs = input.intervalMs ?? 1000;
  let previous: Reading | null = null;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  // Every reading goes through it, the first too, which sets where the next one's pauses start.
  const longestPause = longestPauseSincePrevious();

  const read = async (): Promise<Reading> => {
    // The moment the readings were asked for: a reply that comes late (an engine's stats over the
    // network, a remote probe's line) still describes that moment, and its second.
    const at = Date.now();
    const [server, k6, host] = await Promise.all([
      input.server.resources(),
      input.k6Resources(),
      (input.hostCpu ?? hostCpuTimes)(),
    ]);
    return { at, server, k6, host };
  };

  const tick = async () => {
    const current = await read();
    const runtime = input.runtime ? longestPause(await input.runtime()) : undefined;
    if (previous) input.onSample(sampleOf(previous, current, runtime));
    previous = current;
  };

  let timer: NodeJS.Timeout | undefined;
  let tickStartedAt = Date.now();
  const run = () => {
    tickStartedAt = Date.now();
    inFlight = tick()
      .catch(() => undefined)
      .finally(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    // Aligned to k6's per-second buckets (wall-clock seconds), a few ms after each boundary: the one
    // after the last tick began, so a slow tick is followed at once instead of skipping a second.
    const next = (Math.floor(tickStartedAt / intervalMs) + 1) * intervalMs + 20;
    timer = setTimeout(run, Math.max(0, next - Date.now()));
  };
  run();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}

/** The second that ended between two readings: rates over the times the counters were read. */
function sampleOf(previous: Reading, current: Reading, runtime: unknown): ResourceSample {
  // A rate over the times the counters were read: the source's own when it gives one (an
  // engine's stats sample), else when they were asked for. The same sample twice is no reading,
  // and neither is a counter that went back (a source that is not one counter any more): a 0
  // would pass for an idle second.
  const pct = (a: TimedCpu | null, b: TimedCpu | null) => {
    if (!a || !b || b.cpuSeconds < a.cpuSeconds) return null;
    const seconds =
      (a.at !== undefined && b.at !== undefined ? b.at - a.at : current.at - previous.at) / 1000;
    return seconds > 0 ? ((b.cpuSeconds - a.cpuSeconds) / seconds) * 100 : null;
  };
  const hostTotal = current.host && previous.host ? current.host.total - previous.host.total : 0;
  return {
    // Readings are taken just after each wall-clock second: the sample describes the second that ended.
    t: Math.floor(current.at / 1000) - 1,
    cpuPct: pct(previous.server, current.server),
    rssBytes: current.server?.rssBytes ?? null,
    fds: current.server?.fds ?? null,
    k6CpuPct: pct(previous.k6, current.k6),
    k6RssBytes: current.k6?.rssBytes ?? null,
    hostCpuPct:
      current.host && previous.host && hostTotal > 0
        ? ((current.host.busy - previous.host.busy) / hostTotal) * 100
        : null,
    runtime,
  };
}

/** One connection per server, kept between the once-a-second probes and closed 3 s after the last. */
const runtimeAgent = new http.Agent({ keepAlive: true, maxSockets: 1, timeout: 3_000 });
const RUNTIME_TIMEOUT_MS = 500;

/**
 * The server's `/debug/runtime` JSON, or undefined (no answer in 500 ms, not 200, not JSON). Over
 * node:http on a kept connection: the sampler asks once a second while the cell is measured, and
 * `fetch` cost two to three times the CPU a request (its abort signal, streams and promises).
 */
export function fetchRuntime(url: string): Promise<unknown> {
  if (!url.startsWith("http:")) return fetchRuntimeOverFetch(url);
  return new Promise((resolve) => {
    const req = http.get(url, { agent: runtimeAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        clearTimeout(timer);
        if (res.statusCode !== 200) return resolve(undefined);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          resolve(undefined);
        }
      });
      res.on("error", () => resolve(undefined));
      // Cut off by the timeout mid-body: no answer (after `end`, this resolves nothing).
      res.on("close", () => resolve(undefined));
    });
    const timer = setTimeout(() => req.destroy(), RUNTIME_TIMEOUT_MS);
    req.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

async function fetchRuntimeOverFetch(url: string): Promise<unknown> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(RUNTIME_TIMEOUT_MS) });
    return res.ok ? await res.json() : undefined;
  } catch {
    return undefined;
  }
}
