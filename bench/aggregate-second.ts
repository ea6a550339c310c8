/**
 * What the worker spends on each second of k6's output while a cell is measured: the cell
 * aggregator fed interval lines of three groups (the operation, initialize, notifications) at the
 * given rate, each taken as a stored point as the worker does. Prints the time a second of output
 * costs and the garbage collector's share, then the step that dominated it before: adding one
 * group's histogram to the seven histograms it counts in, read as its non-empty buckets (what the
 * aggregator does) and decoded into a full counts array (what it did).
 *
 *   pnpm --filter @perflab/bench aggregate-second [seconds=600] [requestsPerSecond=2600] [repeats=3]
 */
import { PerformanceObserver } from "node:perf_hooks";
import {
  addBuckets,
  CellAggregator,
  createLatencyHistogram,
  decodeBuckets,
  decodeHistogram,
  encodeHistogram,
} from "@perflab/metrics";
import { machine, mean, sd } from "./lib.ts";

const [seconds = 600, rate = 2600, repeats = 3] = process.argv.slice(2).map(Number);

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
/** A second's latencies around `typicalUs`, 1 % of them a tail up to six times it. */
function secondOf(count: number, typicalUs: number): string {
  const h = createLatencyHistogram();
  for (let i = 0; i < count; i++) {
    const tail = random() < 0.01 ? typicalUs * 5 * random() : 0;
    h.recordValue(Math.round(typicalUs * (0.5 + random()) + tail));
  }
  return encodeHistogram(h);
}
const variants = Array.from({ length: 20 }, () => [
  secondOf(rate, 3500),
  secondOf(rate, 2500),
  secondOf(10, 1500),
]);
const group = (method: string, requests: number, hist: string) => ({
  phase: "measure",
  method,
  tool: "",
  requests,
  failed: 0,
  hist,
});
const lineAt = (t: number) => {
  const [call, init, notify] = variants[t % variants.length]!;
  return {
    type: "interval" as const,
    t,
    dataSent: 1e6,
    dataReceived: 2e6,
    groups: [
      group("tools/call", rate, call!),
      group("initialize", rate, init!),
      group("notifications/initialized", 10, notify!),
    ],
  };
};

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

async function aggregate(): Promise<{ msPerSecond: number; gcShare: number }> {
  const start = 1_000_000;
  const aggregator = new CellAggregator({ measuredSeconds: seconds });
  aggregator.setMeasureStart(start * 1000);
  const gcBefore = gcMs;
  const began = performance.now();
  for (let t = start; t < start + seconds; t++) {
    aggregator.addInterval(lineAt(t) as Parameters<CellAggregator["addInterval"]>[0]);
    aggregator.takeReadyPoints(t + 1);
  }
  const elapsed = performance.now() - began;
  // The collector's entries arrive on the event loop, after the loop above.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { msPerSecond: elapsed / seconds, gcShare: (gcMs - gcBefore) / elapsed };
}

/** µs to add one encoded histogram to seven others, `way` being how it is read. */
function addStep(way: "buckets" | "decoded", encoded: string[]): number {
  const targets = Array.from({ length: 7 }, () => createLatencyHistogram());
  const began = performance.now();
  for (const item of encoded) {
    if (way === "buckets") {
      const buckets = decodeBuckets(item);
      for (const target of targets) addBuckets(target, buckets);
    } else {
      const decoded = decodeHistogram(item);
      for (const target of targets) target.add(decoded);
    }
  }
  return ((performance.now() - began) * 1000) / encoded.length;
}

console.log(machine());
console.log(
  `${seconds} s of output, 3 groups a second, ${rate} requests/s in each of two, ${repeats} repeats after one untimed`,
);
await aggregate();
const runs: Awaited<ReturnType<typeof aggregate>>[] = [];
for (let i = 0; i < repeats; i++) runs.push(await aggregate());
const perSecond = runs.map((r) => r.msPerSecond);
console.log(
  `aggregator: ${mean(perSecond).toFixed(3)} ± ${sd(perSecond).toFixed(3)} ms a second of output, ` +
    `${(mean(runs.map((r) => r.gcShare)) * 100).toFixed(0)} % of it in the garbage collector`,
);
const encoded = Array.from({ length: seconds }, (_, t) => variants[t % variants.length]![0]!);
for (const way of ["buckets", "decoded"] as const) addStep(way, encoded.slice(0, 50));
for (const way of ["buckets", "decoded"] as const) {
  const us = Array.from({ length: repeats }, () => addStep(way, encoded));
  console.log(
    `one group's histogram into seven, read as ${way}: ${mean(us).toFixed(0)} ± ${sd(us).toFixed(0)} µs`,
  );
}
