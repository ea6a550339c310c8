import type { CatalogEntry } from "@perflab/catalog";
import type { CellContext } from "../cell/context.ts";
import { abortReason, CellFailure } from "../cell/errors.ts";
import { type Placement, PlacementError, placementFor } from "../drivers/placement.ts";
import type { K6Runner } from "./k6.ts";

export type Placed = { placement: Placement; server: CatalogEntry; k6: K6Runner };

/**
 * Where the cell runs: its server from the catalog, the placement its driver gives it, and the k6
 * that loads it. Fails the cell, naming why, when any of them is missing here.
 */
export async function placeCell(ctx: CellContext): Promise<Placed> {
  const { cell, deps, signal, server } = ctx;
  if (signal?.aborted)
    throw new CellFailure(abortReason(signal, "the worker was shut down before the cell started"));
  if (!server) throw new CellFailure(`server "${cell.serverName}" is not in the catalog on this worker`);
  const placement = placementFor(deps, deps.env, cell.driver, server);
  if (!placement) throw new CellFailure(`driver "${cell.driver}" is not available on this worker`);
  const unavailable = placement.unavailable(server);
  if (unavailable) throw new CellFailure(unavailable);
  const k6 = await placement.k6().catch((error: Error) => {
    throw error instanceof PlacementError ? new CellFailure(error.message) : error;
  });
  if (k6.version !== null) {
    await deps.db.cell.update({ where: { id: cell.id }, data: { k6Version: k6.version } });
  }
  return { placement, server, k6: k6.runner };
}
