import type Docker from "dockerode";
import { within } from "./docker-engine.ts";
import type { ServerResources } from "./types.ts";

type StatsSample = {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: { usage?: number; stats?: Record<string, number> };
};

/**
 * The container's memory as `docker stats` shows it (calculateMemUsageUnixNoCache in docker/cli):
 * the cgroup's usage minus its inactive file pages, `total_inactive_file` on cgroup v1 and
 * `inactive_file` on v2, each only when smaller than the usage. Active file pages and tmpfs stay
 * counted on both, so one server reads the same on a v1 and a v2 host.
 */
export function memoryFromStats(memory: { usage: number; stats?: Record<string, number> }): number {
  const { usage, stats = {} } = memory;
  const v1 = stats.total_inactive_file;
  if (v1 !== undefined && v1 < usage) return usage - v1;
  const v2 = stats.inactive_file ?? 0;
  return v2 < usage ? usage - v2 : usage;
}

/**
 * CPU seconds and resident memory (memoryFromStats) from one engine stats sample.
 * `at` is the sample's own time (`read`): the engine answers a one-shot request at once only when
 * its collector is idle, otherwise with the collector's next sample, up to a second later, and a CPU
 * rate is only right over the times the counters were read. A container that has stopped reports
 * no memory (usage 0, `read` 0001-01-01): no reading, rather than a 0 that would pass for one.
 */
export function resourcesFromStats(sample: StatsSample): ServerResources | null {
  const cpu = sample.cpu_stats?.cpu_usage?.total_usage;
  const usage = sample.memory_stats?.usage;
  if (cpu === undefined || usage === undefined || usage === 0) return null;
  const at = sample.read ? Date.parse(sample.read) : Number.NaN;
  return {
    cpuSeconds: cpu / 1e9,
    rssBytes: memoryFromStats({ usage, stats: sample.memory_stats?.stats }),
    ...(at > 0 ? { at } : {}),
  };
}

/** How long a one-shot stats request may take: the engine holds it up to a second by design. */
const STATS_REQUEST_MS = 5_000;

/**
 * A container's resources from the engine's stats stream: one subscription per container, the
 * latest sample kept. A stats *request* is held by the engine until its collector's next sample (up
 * to a second: seen on engine 20.10, API 1.41, even with one-shot), which would delay the sampler's
 * tick and date the reading a second late; from the stream each reading is there at once, at most a
 * second old, and carries the time the engine read it (`at`), over which the sampler takes rates.
 * Until the first sample arrives, a one-shot request answers. The stream ends with the container.
 */
export function watchStats(
  container: Docker.Container,
  options: {
    /** How long a one-shot request may take before the reading is given up (default 5 s). */
    requestTimeoutMs?: number;
  } = {},
): {
  latest: (options?: { notBefore?: number }) => Promise<ServerResources | null>;
  close: () => void;
} {
  const requestTimeoutMs = options.requestTimeoutMs ?? STATS_REQUEST_MS;
  let latest: ServerResources | null = null;
  let closed = false;
  let stream: NodeJS.ReadableStream | null = null;
  const opened = (container.stats({ stream: true }) as unknown as Promise<NodeJS.ReadableStream>)
    .then((s) => {
      stream = s;
      if (closed) return destroy(s);
      let buffered = "";
      s.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (!line) continue;
          try {
            latest = resourcesFromStats(JSON.parse(line) as StatsSample) ?? latest;
          } catch {
            // A torn line: the next sample comes within a second.
          }
        }
      });
      s.on("error", () => undefined);
    })
    .catch(() => undefined);
  const destroy = (s: NodeJS.ReadableStream) => (s as unknown as { destroy?: () => void }).destroy?.();
  return {
    async latest(options = {}) {
      const current = () =>
        latest && (options.notBefore === undefined || (latest.at ?? 0) >= options.notBefore) ? latest : null;
      if (current()) return latest;
      await Promise.race([opened, new Promise((r) => setTimeout(r, 200))]);
      if (current()) return latest;
      // A request: the engine answers with its collector's next sample, read after it was asked for.
      // Bounded: an engine that stops answering must not hold the sampler's tick, and with it the
      // sampler's stop at the end of the load.
      try {
        const sample = (await within(
          container.stats({ stream: false, "one-shot": true } as never) as unknown as Promise<StatsSample>,
          requestTimeoutMs,
        )) as StatsSample;
        return resourcesFromStats(sample);
      } catch {
        return null;
      }
    },
    close() {
      closed = true;
      if (stream) destroy(stream);
    },
  };
}
