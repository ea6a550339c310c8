/**
 * What each process of a lab costs during a cell's measured window: CPU seconds and wake-ups
 * (voluntary and involuntary context switches) of the worker, k6, the server under test, Postgres,
 * Redis, the web app and this bench, from /proc before and after. Robust on a loaded machine, where
 * throughput ratios are not: a process's CPU seconds are its own whatever else runs.
 */
import { readFileSync } from "node:fs";
import { costBetween, type GroupCost, type ProcCounters, processTree, snapshot } from "./procs.ts";

export type LabPids = { worker: number; web?: number };

/**
 * Names a process by what it is to the lab: children of the web app count as the web app, the
 * worker's helpers (tsx's esbuild) as the worker, k6 and the server under test as what is measured.
 */
export function labGroups(pids: LabPids) {
  const web = new Set(pids.web === undefined ? [] : processTree(pids.web));
  const worker = new Set(processTree(pids.worker));
  return (pid: number, counters: ProcCounters): string => {
    if (pid === process.pid) return "bench (this process)";
    if (web.has(pid)) return "web app";
    if (counters.name === "k6") return "k6 (load)";
    if (counters.name === "server") return "server (measured)";
    if (worker.has(pid)) return "worker";
    if (counters.name.startsWith("postgres")) return "postgres";
    if (counters.name.startsWith("redis")) return "redis";
    return `other: ${counters.name}`;
  };
}

/** Everything the bench started (the lab's services are its children, their children theirs). */
const everything = () => processTree(process.pid);

/** Measures from now until `until` settles (or `ms` passes): the cost per group. */
export async function costOver(
  pids: LabPids,
  until: Promise<unknown>,
): Promise<{ seconds: number; costs: GroupCost[] }> {
  const t0 = performance.now();
  const before = snapshot(everything());
  await until;
  const after = snapshot(everything());
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, costs: costBetween(before, after, labGroups(pids)) };
}

/** The host's busy share over a window, from /proc/stat: how loaded the shared machine was. */
export function hostBusy(): () => number {
  const read = () => {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
    const idle = cpu[3]! + cpu[4]!;
    return { idle, total: cpu.reduce((a, b) => a + b, 0) };
  };
  const start = read();
  return () => {
    const end = read();
    return 1 - (end.idle - start.idle) / (end.total - start.total);
  };
}

const LAB = new Set(["worker", "postgres", "redis", "web app"]);

/** The table of one window: CPU seconds, % of one core, wake-ups per second, per group. */
export function costTable(title: string, window: { seconds: number; costs: GroupCost[] }): string {
  const { seconds, costs } = window;
  const rows = costs.map((c) => [
    c.group,
    String(c.processes),
    c.cpuSeconds.toFixed(2),
    ((c.cpuSeconds / seconds) * 100).toFixed(1),
    (c.voluntary / seconds).toFixed(0),
    (c.involuntary / seconds).toFixed(0),
  ]);
  const lab = costs.filter((c) => LAB.has(c.group));
  const labCpu = lab.reduce((a, c) => a + c.cpuSeconds, 0);
  const measured = costs
    .filter((c) => c.group === "k6 (load)" || c.group === "server (measured)")
    .reduce((a, c) => a + c.cpuSeconds, 0);
  const head = ["process", "n", "CPU s", "% core", "vol cs/s", "invol cs/s"];
  const widths = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((x, i) => (i ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join(" | ")} |`;
  return [
    `${title} (${seconds.toFixed(1)} s window)`,
    line(head),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    `lab (worker + postgres + redis + web): ${labCpu.toFixed(2)} CPU s = ${((labCpu / seconds) * 100).toFixed(1)} % of a core, ` +
      `${measured > 0 ? ((labCpu / measured) * 100).toFixed(2) : "—"} % of what k6 and the server used`,
  ].join("\n");
}

/** Sums the same groups over several windows (rounds), for the per-arm means. */
export function sumCosts(windows: { seconds: number; costs: GroupCost[] }[]) {
  const groups = new Map<string, GroupCost>();
  let seconds = 0;
  for (const w of windows) {
    seconds += w.seconds;
    for (const c of w.costs) {
      const sum = groups.get(c.group) ?? { ...c, processes: 0, cpuSeconds: 0, voluntary: 0, involuntary: 0 };
      sum.processes = Math.max(sum.processes, c.processes);
      sum.cpuSeconds += c.cpuSeconds;
      sum.voluntary += c.voluntary;
      sum.involuntary += c.involuntary;
      groups.set(c.group, sum);
    }
  }
  return { seconds, costs: [...groups.values()].sort((a, b) => b.cpuSeconds - a.cpuSeconds) };
}
