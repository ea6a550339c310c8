import type { CellDto } from "./dto";

// The axes a comparison is drawn on: load levels and servers.

/**
 * A load level of either model: closed `vus` (that many VUs back to back) or open `rate` (tool calls
 * started per second); the other is null, and both are for a cell without a level.
 */
export type ComparisonLevel = { vus: number | null; rate: number | null };

/** A cell's (or group's) load level; an absent rate (a cell frozen in an old report) reads as none. */
export function levelOf(cell: { vus: number | null; rate?: number | null }): ComparisonLevel {
  const rate = cell.rate ?? null;
  return rate !== null ? { vus: null, rate } : { vus: cell.vus, rate: null };
}

/** Tells load levels apart across models: "vus:50", "rate:50", "none" (as contracts' loadLevelKey). */
export function levelKey(level: { vus: number | null; rate?: number | null }): string {
  const { vus, rate } = levelOf(level);
  return rate !== null ? `rate:${rate}` : vus !== null ? `vus:${vus}` : "none";
}

/** Closed-model levels by VUs, then open-model levels by rate, then a level of neither. */
export function levelOrder(a: ComparisonLevel, b: ComparisonLevel): number {
  const rank = (l: ComparisonLevel) => (l.rate !== null ? 1 : l.vus !== null ? 0 : 2);
  const value = (l: ComparisonLevel) => l.rate ?? l.vus ?? 0;
  return rank(a) - rank(b) || value(a) - value(b);
}

/** The run's servers that have cells, in the run's order (its spec), then any other: bars follow it. */
export function runServers(cells: Pick<CellDto, "serverName">[], serverOrder: string[] = []): string[] {
  return [...new Set([...serverOrder, ...cells.map((c) => c.serverName)])].filter((name) =>
    cells.some((c) => c.serverName === name),
  );
}
