import { chartedPoints } from "./charted";
import { levelKey, runServers } from "./compare";
import type { CellDto, PointDto } from "./dto";
import { bytesToMb } from "./format";
import { levelLabel, workloadName } from "./labels";

export type OverlayMetric = "rps" | "p99" | "cpu" | "rss";

/** `unit` heads the chart; `valueUnit` follows each value in its tooltip. */
export const overlayMetrics: { id: OverlayMetric; title: string; unit: string; valueUnit: string }[] = [
  { id: "rps", title: "Throughput", unit: "HTTP req/s", valueUnit: "req/s" },
  { id: "p99", title: "Latency p99", unit: "ms", valueUnit: "ms" },
  { id: "cpu", title: "Server CPU", unit: "%, 100 = one core", valueUnit: "%" },
  { id: "rss", title: "Server memory", unit: "RSS, MB", valueUnit: "MB" },
];

export type OverlayLine = {
  cellId: string;
  label: string;
  serverName: string;
  round: number;
  /** The cell's window: the line stops before warm-up + duration (`chartedPoints`). */
  warmupSeconds: number;
  durationSeconds: number;
};

export type OverlayGroup = {
  key: string;
  label: string;
  warmupSeconds: number;
  /** The last second any of its cells should reach (warm-up + duration) or did reach. */
  endSecond: number;
  lines: OverlayLine[];
};

type OverlayCell = Pick<
  CellDto,
  | "id"
  | "index"
  | "serverName"
  | "vus"
  | "round"
  | "scenario"
  | "params"
  | "warmupSeconds"
  | "durationSeconds"
> & { rate?: number | null };

/**
 * The cells one chart can overlay: the same workload (scenario and parameters) at the same load
 * level (50 VUs and 50 calls/s are two), each with recorded seconds. A group needs two lines to
 * compare; a lone cell has its own charts. Lines follow the run's server order (which fixes their
 * colours), then the round.
 */
export function overlayGroups(
  cells: OverlayCell[],
  points: Record<string, PointDto[]>,
  serverOrder: string[] = [],
): OverlayGroup[] {
  const servers = runServers(cells, serverOrder);
  const groups = new Map<string, { label: string; cells: OverlayCell[] }>();
  const charted = (cell: OverlayCell) => chartedPoints(points[cell.id] ?? [], cell);
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    if (charted(cell).length === 0) continue;
    const key = `${cell.scenario}\u0000${JSON.stringify(cell.params ?? {})}\u0000${levelKey(cell)}`;
    const what = workloadName(cell);
    const level = levelLabel(cell);
    const label = level === null ? what : `${what} · ${level}`;
    const group = groups.get(key) ?? { label, cells: [] };
    group.cells.push(cell);
    groups.set(key, group);
  }
  const result: OverlayGroup[] = [];
  for (const [key, group] of groups) {
    if (group.cells.length < 2) continue;
    const multiRound = group.cells.some((c) => c.round > 1);
    const ordered = [...group.cells].sort(
      (a, b) => servers.indexOf(a.serverName) - servers.indexOf(b.serverName) || a.round - b.round,
    );
    const lastSeen = Math.max(...ordered.map((c) => charted(c).at(-1)!.second));
    result.push({
      key,
      label: group.label,
      warmupSeconds: Math.max(...ordered.map((c) => c.warmupSeconds)),
      endSecond: Math.max(lastSeen, ...ordered.map((c) => c.warmupSeconds + c.durationSeconds)),
      lines: ordered.map((c) => ({
        cellId: c.id,
        label: multiRound ? `${c.serverName} · r${c.round}` : c.serverName,
        serverName: c.serverName,
        round: c.round,
        warmupSeconds: c.warmupSeconds,
        durationSeconds: c.durationSeconds,
      })),
    });
  }
  return result;
}

const reading: Record<OverlayMetric, (p: PointDto) => number | null> = {
  rps: (p) => p.rps,
  p99: (p) => p.p99,
  cpu: (p) => p.cpuPct,
  rss: (p) => bytesToMb(p.rssBytes),
};

/**
 * One row per second since load start, a column per line (keyed by cell id): seconds a cell did
 * not record stay empty rather than zero.
 */
export function overlayRows(
  group: OverlayGroup,
  points: Record<string, PointDto[]>,
  metric: OverlayMetric,
): ({ second: number } & Record<string, number | null>)[] {
  const bySecond = new Map<number, { second: number } & Record<string, number | null>>();
  for (const line of group.lines) {
    for (const point of chartedPoints(points[line.cellId] ?? [], line)) {
      const row = bySecond.get(point.second) ?? { second: point.second };
      row[line.cellId] = reading[metric](point);
      bySecond.set(point.second, row);
    }
  }
  return [...bySecond.values()].sort((a, b) => a.second - b.second);
}
