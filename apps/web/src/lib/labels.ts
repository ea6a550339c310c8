import type { CellDto } from "./dto";

/** A short name for a cell in legends and tables: server, load and round. */
export function cellLabel(
  cell: Pick<CellDto, "index" | "serverName" | "vus" | "round" | "scenario">,
): string {
  const load = cell.vus === null ? "" : ` · ${cell.vus} VUs`;
  return `#${cell.index} ${cell.serverName}${load} · r${cell.round}`;
}
