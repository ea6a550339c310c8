import { opsPerCpuSecond } from "@perflab/metrics/stats";
import type { CellDto, CellStatus } from "./dto";

/** One measure over the rounds of a server × load level: what the comparison charts draw. */
export type Stat = { mean: number; sd: number; min: number; max: number; n: number };

export type ComparisonGroup = {
  serverName: string;
  vus: number | null;
  /** Succeeded cells with a summary, one per round. */
  rounds: number;
  /** MCP tool calls per second (the summary table's "Ops/s"). */
  opsRps: Stat;
  /** p99 latency of the measured window, ms. */
  p99Ms: Stat | null;
  /** Peak server RSS, bytes. */
  rssPeakBytes: Stat | null;
  /**
   * Tool calls per second of server CPU (ops/s ÷ the server's mean CPU in cores): how much work a
   * server does for its CPU, comparable even where k6, not the server, set the throughput.
   */
  opsPerCpuSecond: Stat | null;
  /** Rounds whose load generator was saturated: their throughput is k6's ceiling, not the server's. */
  k6SaturatedRounds: number;
};

/** Cells that measure the same thing: one scenario with the same parameters. */
export type Workload = {
  key: string;
  scenario: string;
  tool: string | null;
  servers: string[];
  levels: (number | null)[];
  groups: ComparisonGroup[];
};

export type MissingCell = Pick<CellDto, "index" | "serverName" | "vus" | "round" | "status" | "error">;

export type Comparison = {
  /** Every server of the run, in the run's order: the index gives its colour on every chart. */
  servers: string[];
  workloads: Workload[];
  /** Failed or cancelled: no result to compare. */
  missing: MissingCell[];
  /** Queued, running, or succeeded with its summary not loaded yet: not in the charts yet. */
  pending: number;
};

const openStatuses: CellStatus[] = ["queued", "running"];

/** Mean, sample standard deviation (0 for one value), min and max; null when there is no value. */
export function stat(values: (number | null | undefined)[]): Stat | null {
  const xs = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const n = xs.length;
  if (n === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs), n };
}

const toolOf = (cell: Pick<CellDto, "params">) => {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" ? tool : null;
};

const workloadKey = (cell: Pick<CellDto, "scenario" | "params">) =>
  `${cell.scenario}\u0000${JSON.stringify(cell.params ?? {})}`;

const levelOrder = (a: number | null, b: number | null) =>
  a === null ? (b === null ? 0 : 1) : b === null ? -1 : a - b;

/** The run's servers that have cells, in the run's order (its spec), then any other: colours follow it. */
export function runServers(cells: Pick<CellDto, "serverName">[], serverOrder: string[] = []): string[] {
  return [...new Set([...serverOrder, ...cells.map((c) => c.serverName)])].filter((name) =>
    cells.some((c) => c.serverName === name),
  );
}

/**
 * Groups a run's cells by workload × server × load level and aggregates the rounds. Only succeeded
 * cells with a summary count; `serverOrder` (the run's spec) fixes the order, hence the colours.
 */
export function compareCells(cells: CellDto[], serverOrder: string[] = []): Comparison {
  const servers = runServers(cells, serverOrder);
  const missing: MissingCell[] = [];
  let pending = 0;
  const byWorkload = new Map<string, CellDto[]>();
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    // A cell the stream reports succeeded gets its summary with the page's next refresh.
    if (openStatuses.includes(cell.status) || (cell.status === "succeeded" && cell.summary === null)) {
      pending++;
      continue;
    }
    if (cell.status !== "succeeded" || cell.summary === null) {
      const { index, serverName, vus, round, status, error } = cell;
      missing.push({ index, serverName, vus, round, status, error });
      continue;
    }
    const key = workloadKey(cell);
    byWorkload.set(key, [...(byWorkload.get(key) ?? []), cell]);
  }

  const workloads: Workload[] = [...byWorkload].map(([key, done]) => {
    const levels = [...new Set(done.map((c) => c.vus))].sort(levelOrder);
    const groups: ComparisonGroup[] = [];
    for (const vus of levels) {
      for (const serverName of servers) {
        const rounds = done.filter((c) => c.vus === vus && c.serverName === serverName);
        const opsRps = stat(rounds.map((c) => c.summary!.opsRps));
        if (!opsRps) continue;
        groups.push({
          serverName,
          vus,
          rounds: rounds.length,
          opsRps,
          p99Ms: stat(rounds.map((c) => c.summary!.latency.p99)),
          rssPeakBytes: stat(rounds.map((c) => c.summary!.rssPeakBytes)),
          opsPerCpuSecond: stat(rounds.map((c) => opsPerCpuSecond(c.summary!))),
          k6SaturatedRounds: rounds.filter((c) => c.k6Saturated).length,
        });
      }
    }
    const first = done[0]!;
    return {
      key,
      scenario: first.scenario,
      tool: toolOf(first),
      servers: servers.filter((s) => groups.some((g) => g.serverName === s)),
      levels,
      groups,
    };
  });
  return { servers, workloads, missing, pending };
}

/** The comparison is worth showing when the run spans more than one server or load level. */
export function isComparable(cells: Pick<CellDto, "serverName" | "vus">[]): boolean {
  return new Set(cells.map((c) => c.serverName)).size > 1 || new Set(cells.map((c) => c.vus)).size > 1;
}
