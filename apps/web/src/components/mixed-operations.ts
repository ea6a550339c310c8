import { type TOperationStats, ZOperationStats } from "@perflab/contracts";
import { z } from "zod";
import type { CellDto } from "@/lib/dto";

const ZOperations = z.array(ZOperationStats);

/**
 * A cell's operations by method and tool, when it called more than one tool (a tool mix): each
 * tool's calls and percentiles from its own merged histograms, and the session's protocol requests.
 */
export function mixedOperations(cell: CellDto): TOperationStats[] | null {
  const parsed = ZOperations.safeParse(cell.summary?.operations);
  if (!parsed.success) return null;
  const tools = new Set(parsed.data.filter((o) => o.method === "tools/call").map((o) => o.tool));
  return tools.size > 1 ? parsed.data : null;
}
