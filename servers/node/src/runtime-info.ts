import { readFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";

const startedAt = Date.now();
const isBun = "bun" in process.versions;

/**
 * perf_hooks `gc` entry kinds that are one completed collection: a young-generation collection
 * (scavenge, or minor mark-sweep where V8 runs it) or a full mark-compact. V8 also reports an
 * incremental marking step and weak-callback processing as `gc` entries of their own
 * (NODE_PERFORMANCE_GC_INCREMENTAL, _WEAKCB), so counting every entry would count one major
 * collection two or three times; Go's NumGC and the JVM's MXBeans count collections.
 */
const gcCollectionKinds = new Set(
  [
    constants.NODE_PERFORMANCE_GC_MINOR,
    (constants as Record<string, number | undefined>).NODE_PERFORMANCE_GC_MINOR_MARK_SWEEP,
    constants.NODE_PERFORMANCE_GC_MAJOR,
  ].filter((kind): kind is number => typeof kind === "number"),
);

/** Whether a perf_hooks `gc` entry's `detail.kind` is a completed collection (see gcCollectionKinds). */
export function isGcCollection(kind: unknown): boolean {
  return typeof kind === "number" && gcCollectionKinds.has(kind);
}

/** The contract's cap on gc_pauses_recent (CONTRACT.md section 7). */
export const recentPausesKept = 64;

/**
 * The newest pauses as [n, ms], oldest first; n numbers every pause from 1 so a reader can take
 * those after the last it saw. Shifting a 64-entry array once per GC entry costs nothing next to the GC.
 */
export class PauseRing {
  private readonly pauses: [number, number][] = [];
  private count = 0;

  add(ms: number): void {
    this.count++;
    this.pauses.push([this.count, ms]);
    if (this.pauses.length > recentPausesKept) this.pauses.shift();
  }

  recent(): [number, number][] {
    return this.pauses.map(([n, ms]) => [n, ms]);
  }
}

// V8 reports its GC work as perf_hooks "gc" entries; JavaScriptCore (Bun) has no such
// entries, so Bun reports null for the GC fields. gc_count counts collections only;
// gc_pause_total_ms sums every entry and gc_pauses_recent lists each, since each (an incremental
// marking step too) is time the event loop spent in the collector.
let gcCount: number | null = null;
let gcPauseMs: number | null = null;
let gcPauses: PauseRing | null = null;
const entryTypes = (PerformanceObserver as { supportedEntryTypes?: readonly string[] }).supportedEntryTypes;
if (entryTypes?.includes("gc")) {
  gcCount = 0;
  gcPauseMs = 0;
  const ring = new PauseRing();
  gcPauses = ring;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: unknown } | null }).detail?.kind;
      if (isGcCollection(kind)) (gcCount as number)++;
      (gcPauseMs as number) += entry.duration;
      ring.add(entry.duration);
    }
  }).observe({ entryTypes: ["gc"] });
}

/** VmRSS (statm's resident pages × page size, in kB) and Threads from /proc/self/status. */
function procStatus(): { rss: number | null; threads: number | null } {
  try {
    const status = readFileSync("/proc/self/status", "latin1");
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    const threads = /^Threads:\s+(\d+)/m.exec(status)?.[1];
    return { rss: rss ? Number(rss) * 1024 : null, threads: threads ? Number(threads) : null };
  } catch {
    return { rss: null, threads: null };
  }
}

export interface RuntimeState {
  parallelism: number;
  stateless: boolean;
  jsonResponse: boolean;
  sessions: number;
}

/** The /debug/runtime figures before `mcp` (CONTRACT.md section 7), in the contract's key order. */
export function runtimeFigures(parallelism: number) {
  const mem = process.memoryUsage();
  const { rss, threads } = procStatus();
  return {
    runtime: isBun
      ? { name: "bun", version: process.versions.bun }
      : { name: "node", version: process.version },
    pid: process.pid,
    uptime_ms: Date.now() - startedAt,
    parallelism,
    heap_used_bytes: mem.heapUsed,
    heap_total_bytes: mem.heapTotal,
    rss_bytes: rss,
    gc_count: gcCount,
    gc_pause_total_ms: gcPauseMs,
    gc_pauses_recent: gcPauses?.recent() ?? null,
    threads,
    goroutines: null,
  };
}

/** The /debug/runtime body of an MCP server. */
export function runtimeInfo(state: RuntimeState): string {
  return JSON.stringify({
    ...runtimeFigures(state.parallelism),
    mcp: {
      stateless: state.stateless,
      json_response: state.jsonResponse,
      sessions: state.stateless ? null : state.sessions,
    },
  });
}
