import type { CellDto } from "./dto";

/**
 * Why a cell has no metric points yet, under its empty charts. A queued cell that says what it waits
 * for (the worker's stage: "waiting for server builds to end: rust") gives that reason alone; one
 * that does not waits its turn on its host.
 */
export function waitingMessage(cell: Pick<CellDto, "status" | "stage">): string {
  if (cell.status === "queued") {
    return cell.stage
      ? `Queued, ${cell.stage}.`
      : "Queued: a host measures one cell at a time, so this one starts when the cells ahead of it on its worker's host have ended.";
  }
  if (cell.status === "running")
    return `Waiting for the first second of load${cell.stage ? ` (${cell.stage})` : ""}…`;
  return "No metric points were recorded for this cell.";
}
