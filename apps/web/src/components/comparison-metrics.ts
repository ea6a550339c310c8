import type { ComparisonGroup, ComparisonLevel, Stat } from "@/lib/compare";
import { bytesToMb, formatMeasure, formatRate } from "@/lib/format";
import { levelLabel, operationsName, operationWord } from "@/lib/labels";

/** Title and units name the workload's own operations (see operationWord): requests, or tool calls. */
export type Metric = {
  id: "ops" | "p99" | "latency-stddev" | "rss" | "efficiency" | "rps-per-mb" | "gc-pause-max" | "timeouts";
  title: (scenario: string) => string;
  unit: (scenario: string) => string;
  /** Short unit for the tooltip's heading. */
  short: (scenario: string) => string;
  pick: (group: ComparisonGroup) => Stat | null;
  /** A bare number in the metric's unit. */
  format: (value: number) => string;
};

export const scale = (s: Stat | null, by: (v: number) => number): Stat | null =>
  s && {
    ...s,
    mean: by(s.mean),
    sd: by(s.sd),
    min: by(s.min),
    max: by(s.max),
    ci95: s.ci95 && [by(s.ci95[0]), by(s.ci95[1])],
  };

export const msNumber = (ms: number) => formatMeasure(ms);

export const metrics: Metric[] = [
  {
    id: "ops",
    title: () => "Throughput",
    unit: (scenario) => `${operationsName(scenario)} per second`,
    short: (scenario) => `${operationWord(scenario)}/s`,
    pick: (g) => g.opsRps,
    format: formatRate,
  },
  {
    id: "p99",
    title: () => "Latency p99",
    unit: () => "ms, measured window",
    short: () => "ms",
    pick: (g) => g.p99Ms,
    format: msNumber,
  },
  {
    id: "latency-stddev",
    title: () => "Latency spread",
    unit: () => "standard deviation, ms, measured window",
    short: () => "ms",
    pick: (g) => g.latencyStddevMs,
    format: msNumber,
  },
  {
    id: "rss",
    title: () => "Peak memory",
    unit: () => "server RSS, MB",
    short: () => "MB",
    pick: (g) => scale(g.rssPeakBytes, (v) => bytesToMb(v)!),
    format: formatRate,
  },
  {
    id: "efficiency",
    title: (scenario) => `${operationsName(scenario)} per CPU-second`,
    unit: (scenario) => `${operationWord(scenario)}/s per core of server CPU`,
    short: (scenario) => `${operationWord(scenario)}/CPU-s`,
    pick: (g) => g.opsPerCpuSecond,
    format: formatRate,
  },
  {
    id: "rps-per-mb",
    title: () => "Requests per MB",
    unit: () => "HTTP req/s per MB of mean server RSS",
    short: () => "req/s per MB",
    pick: (g) => g.rpsPerMb,
    format: formatRate,
  },
  {
    id: "gc-pause-max",
    title: () => "Longest GC pause",
    unit: () => "ms, one pause of the server's runtime (Rust: no GC, 0; Bun: not reported)",
    short: () => "ms",
    pick: (g) => g.gcPauseMaxMs,
    format: msNumber,
  },
  {
    id: "timeouts",
    title: () => "Timeouts",
    unit: (scenario) => `% of ${operationsName(scenario).toLowerCase()} cut by the client's timeout`,
    short: () => "%",
    pick: (g) => g.timeoutsPct,
    format: formatRate,
  },
];

/**
 * A level's heading: "50 VUs" (closed model), "500 calls/s" or "500 requests/s" (open model, in the
 * scenario's words), "—" for neither.
 */
export const levelHeading = (level: ComparisonLevel, scenario: string) =>
  levelLabel({ ...level, scenario }) ?? "—";
