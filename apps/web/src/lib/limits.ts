import type { CellDto } from "./dto";
import { terminalCellStatuses } from "./dto";

/** Limits as a run's spec asks for them: each part optional (the docker driver defaults the rest). */
export type RequestedLimits = { cpus?: number; memoryMb?: number; cpuset?: string } | null | undefined;

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * "1 vCPU · 512 MB · CPUs 0-1", from whichever parts are there and well-formed (a report frozen
 * before limits were checked may hold a partial object): never "undefined", null when nothing is.
 */
export function formatLimits(limits: unknown): string | null {
  if (!limits || typeof limits !== "object") return null;
  const { cpus, memoryMb, cpuset } = limits as Record<string, unknown>;
  const parts = [
    finite(cpus) ? `${cpus} vCPU` : null,
    finite(memoryMb) ? `${memoryMb} MB` : null,
    typeof cpuset === "string" && cpuset ? `CPUs ${cpuset}` : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(" · ") : null;
}

export type LimitsLabel = { text: string; applied: boolean };

/**
 * What a cell's limits line says. `cell.limits` holds only what the driver enforced (set when the
 * server started); before that — or for a cell that never started, or a local process, which is
 * not limited — the run's request is shown as a request, never as enforced. Null: nothing to say.
 */
export function limitsLabel(
  cell: Pick<CellDto, "limits" | "driver" | "status">,
  requested: RequestedLimits,
): LimitsLabel | null {
  const applied = formatLimits(cell.limits);
  if (applied) return { text: applied, applied: true };
  const asked = formatLimits(requested);
  if (!asked) return null;
  if (cell.driver === "local")
    return { text: `requested ${asked}, not enforced by the local driver`, applied: false };
  if (terminalCellStatuses.includes(cell.status))
    return { text: `requested ${asked}, not applied`, applied: false };
  return { text: `requested ${asked}`, applied: false };
}
