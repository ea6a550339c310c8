import { Prisma } from "@perflab/db";
import type { CellContext } from "../cell/context.ts";
import { CellFailure } from "../cell/errors.ts";
import { publish } from "../cell/finish.ts";
import { type ServerBuild, serverBuild } from "../cell/server-build.ts";
import type { CellLimits, ExitInfo, RunningServer } from "../drivers/types.ts";
import type { Placed } from "./place.ts";

/** The cell's server once started, kept for its stop whatever stage the cell ends in. */
export class ServerTracker {
  running: RunningServer | null = null;
  // A server that exits before perflab asks it to stop failed the cell, even after k6 ended.
  stopRequested = false;
  exitedOnItsOwn: ExitInfo | null = null;

  track(running: RunningServer): void {
    this.running = running;
    void running.exited.then((info) => {
      if (!this.stopRequested) this.exitedOnItsOwn = info;
    });
  }
}

export type StartedServer = {
  running: RunningServer;
  port: number;
  baseUrl: string;
  build: ServerBuild;
};

/** Starts the server where the cell is placed and records its port, enforced limits and build. */
export async function startServer(
  ctx: CellContext,
  placed: Placed,
  backends: Record<string, string>,
  tracker: ServerTracker,
): Promise<StartedServer> {
  const { cell, marker } = ctx;
  const { placement, server } = placed;
  const requestedPort = await placement.port(server);
  const running = await placement
    .start({
      server,
      cellId: cell.id,
      runId: cell.runId,
      port: requestedPort,
      env: { ...backends, ...marker },
      limits: (cell.limits as CellLimits | null) ?? undefined,
    })
    .catch((error: Error) => {
      ctx.log.warn({ err: error }, "the server could not start");
      throw new CellFailure(`the server could not start: ${error.message}`);
    });
  tracker.track(running);
  ctx.checkAbort();
  const port = running.port ?? requestedPort;
  const build = serverBuild(server, running.image ?? null, running.imageId ?? null);
  await recordStart(ctx, running, port, build);
  return { running, port, baseUrl: `http://127.0.0.1:${port}`, build };
}

/** The started server on the cell (port, what was enforced, what ran), and live: now its health. */
async function recordStart(ctx: CellContext, running: RunningServer, port: number, build: ServerBuild) {
  const { cell, deps } = ctx;
  const applied = running.appliedLimits;
  const enforced = applied
    ? {
        cpus: applied.cpus,
        memoryMb: Math.round(applied.memoryBytes / 2 ** 20),
        ...(applied.cpuset ? { cpuset: applied.cpuset } : {}),
      }
    : null;
  await deps.db.cell.update({
    where: { id: cell.id },
    data: {
      port,
      // What was enforced, not what was asked (the run's spec keeps that): none for a plain process.
      limits: enforced ?? Prisma.DbNull,
      serverBuild: build,
      // Measured on the engine's machine, not the worker's.
      ...(running.machine ? { hostFingerprint: running.machine } : {}),
    },
  });
  await publish(deps, cell.runId, {
    type: "cell",
    cellId: cell.id,
    status: "running",
    stage: "waiting for health",
    started: {
      limits: enforced && { cpuset: null, ...enforced },
      image: running.image ?? null,
      imageId: running.imageId ?? null,
    },
  });
}
