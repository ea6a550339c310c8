import { mkdir } from "node:fs/promises";
import { type CatalogEntry, loadServerCatalog, registeredEntry, withVariants } from "@perflab/catalog";
import { type CellContext, type CellDeps, type CellRow, cellContext } from "../cell/context.ts";
import { abortReason, CellCancelled, CellNotStarted } from "../cell/errors.ts";
import { finishCell, publish } from "../cell/finish.ts";
import { serverBuild } from "../cell/server-build.ts";
import { hostFingerprint } from "../host.ts";

/**
 * Claims a queued cell for this worker: it turns `running` (its run too) with this host's
 * fingerprint. Returns null when there is nothing to run: the cell is gone, ended, cancelled, or
 * another live worker runs it.
 */
export async function claimCell(
  deps: CellDeps,
  input: { cellId: string; signal?: AbortSignal | undefined },
): Promise<CellContext | null> {
  const { db, log } = deps;
  const cell = await db.cell.findUnique({ where: { id: input.cellId }, include: { run: true } });
  if (!cell) {
    log.warn({ cellId: input.cellId }, "cell no longer exists; skipping");
    return null;
  }
  if (cell.status === "succeeded" || cell.status === "failed" || cell.status === "cancelled") return null;
  if (cell.status === "running") {
    await resolveRunningCell(deps, cell);
    return null;
  }
  const server = await cellServer(deps, cell);
  const ctx = cellContext(deps, cell, server, input.signal);
  const { signal } = input;
  // Stopped while the cell was read (a SIGTERM during the sweep before it, say), or the host lock
  // was lost: not claimed, so not run. A cancel needs nothing: the claim below finds it cancelled.
  if (signal?.aborted && !(signal.reason instanceof CellCancelled))
    throw new CellNotStarted(abortReason(signal, "stopped before the cell started"));
  if (!(await markRunning(ctx))) {
    log.info({ cellId: cell.id }, "cell is no longer queued (cancelled); skipping");
    return null;
  }
  ctx.log.info({ driver: cell.driver, loadLevel: cell.loadLevel }, "cell started");
  await ctx.stage("starting server");
  await mkdir(ctx.workDir, { recursive: true });
  return ctx;
}

/**
 * The cell's server: the registered definition it was queued with (read now, so an edit before the
 * cell starts is what runs), or the lab's own server of its name. Undefined when neither is there.
 */
async function cellServer({ db, env, log }: CellDeps, cell: CellRow): Promise<CatalogEntry | undefined> {
  if (!cell.serverDefinitionId)
    return withVariants(loadServerCatalog(env.PERFLAB_SERVERS_DIR)).find((s) => s.name === cell.serverName);
  const row = await db.serverDefinition.findUnique({ where: { id: cell.serverDefinitionId } });
  try {
    return row ? registeredEntry(row) : undefined;
  } catch (error) {
    log.warn({ err: error, cellId: cell.id }, "the cell's registered server does not read");
    return undefined;
  }
}

/** A cell found `running`: left to the live worker that runs it, or failed if its worker is gone. */
async function resolveRunningCell(deps: CellDeps, cell: CellRow): Promise<void> {
  const owner = await deps.cellOwner?.(cell.id).catch(() => null);
  if (owner) {
    deps.log.warn(
      { cellId: cell.id, owner },
      "the cell's job came back while another worker still runs the cell (Redis was away longer than the job's lock); leaving the cell to it",
    );
    return;
  }
  // The job came back after its worker stopped mid-cell: its measurements are incomplete.
  await finishCell(deps, cell.id, cell.runId, {
    status: "failed",
    error: "the worker running this cell stopped before the cell finished (worker crash or kill)",
  });
}

/** Whether the cell was still queued and is now this worker's; its run turns `running` with it. */
async function markRunning({ deps, cell, server }: CellContext): Promise<boolean> {
  const { db, env } = deps;
  const startedAt = new Date();
  // Only a cell still queued starts: the run may have been cancelled since it was read.
  const claimed = await db.cell.updateMany({
    where: { id: cell.id, status: "queued" },
    data: {
      status: "running",
      attempts: { increment: 1 },
      startedAt,
      hostFingerprint: hostFingerprint(env.PERFLAB_HOST_ID),
      k6Version: deps.k6Version,
      serverBuild: server ? serverBuild(server, null) : undefined,
    },
  });
  if (claimed.count === 0) return false;
  await db.run.updateMany({
    where: { id: cell.runId, status: "queued" },
    data: { status: "running", startedAt },
  });
  await publish(deps, cell.runId, {
    type: "run",
    runId: cell.runId,
    status: "running",
    cellsDone: cell.run.cellsDone,
    cellsTotal: cell.run.cellsTotal,
  });
  return true;
}
