import type { CellDto } from "./dto";

/** The tool a cell calls, when its scenario names one. */
export function cellTool(cell: Pick<CellDto, "params">): string | null {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" && tool ? tool : null;
}

/** "per-call" when each call opened its own MCP session; null for the default, one per VU. */
export function cellSession(cell: Pick<CellDto, "params">): "per-call" | null {
  return (cell.params as { session?: unknown } | null)?.session === "per-call" ? "per-call" : null;
}

/**
 * What a cell's scenario does, in a few words: its tool (else the scenario's id), and how it used
 * sessions when not one per VU: "echo", "echo · session per call".
 */
export function workloadName(cell: Pick<CellDto, "scenario" | "params">): string {
  const what = cellTool(cell) ?? cell.scenario;
  return cellSession(cell) ? `${what} · session per call` : what;
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
  const what = cellTool(cell) ? ` · ${workloadName(cell)}` : "";
  const load = cell.vus === null ? "" : ` · ${vusLabel(cell.vus)}`;
  return `#${cell.index} ${cell.serverName}${what}${load} · r${cell.round}`;
}
