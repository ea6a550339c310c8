import { compareCells, groupsAtLevel, versusFastest } from "./compare";
import type { CellDto } from "./dto";
import type { CellNumbering } from "./labels";

/** One server's bar of a report's preview image. */
export type HeadlineBar = {
  serverName: string;
  opsRps: number;
  p99Ms: number | null;
  /** Its ops/s over the fastest's, 0–1. */
  ratio: number;
  fastest: boolean;
};

export type Headline = { scenario: string; level: string; bars: HeadlineBar[] };

/**
 * The comparison a report's preview shows: its first workload at its highest load level, each
 * server's mean ops/s over the rounds against the fastest, with its p99. Null without a result.
 */
export function reportHeadline(
  cells: (CellDto & CellNumbering)[],
  serverOrder: string[] = [],
): Headline | null {
  const workload = compareCells(cells, serverOrder).workloads.find((w) => w.groups.length > 0);
  const level = workload?.levels.at(-1);
  if (!workload || !level) return null;
  const groups = groupsAtLevel(workload.groups, level);
  const versus = versusFastest(groups);
  return {
    scenario: workload.tool ? `${workload.scenario} · ${workload.tool}` : workload.scenario,
    level: level.rate !== null ? `${level.rate} ops/s offered` : level.vus !== null ? `${level.vus} VUs` : "",
    bars: groups.map((g) => ({
      serverName: g.serverName,
      opsRps: g.opsRps.mean,
      p99Ms: g.p99Ms?.mean ?? null,
      ratio: versus.get(g)?.ratio ?? 1,
      fastest: versus.get(g)?.fastest ?? false,
    })),
  };
}
