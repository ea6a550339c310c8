import type { CellDto } from "./dto";

/** The tool a cell calls, when its scenario names one. */
export function cellTool(cell: Pick<CellDto, "params">): string | null {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" && tool ? tool : null;
}

/** A load level as people say it: "1 VU", "50 VUs". */
export const vusLabel = (vus: number): string => `${vus} ${vus === 1 ? "VU" : "VUs"}`;

/**
 * A short name for a cell in legends and tables: server, tool, load and round — the tool too, so
 * the cells of a run that calls several tools on one server are told apart.
 */
export function cellLabel(
  cell: Pick<CellDto, "index" | "serverName" | "vus" | "round" | "scenario" | "params">,
): string {
  const tool = cellTool(cell);
  const load = cell.vus === null ? "" : ` · ${vusLabel(cell.vus)}`;
  return `#${cell.index} ${cell.serverName}${tool ? ` · ${tool}` : ""}${load} · r${cell.round}`;
}
