import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "@perflab/db";
import type { Redis } from "ioredis";
import { finishCell } from "./cell/finish.ts";
import { reapOrphanProcesses } from "./drivers/orphans.ts";
import type { Logger } from "./logger.ts";

/** Why a cell whose worker died ends: said by whichever worker of the host finds what it left. */
export const ORPHANED_CELL =
  "the worker running this cell died; the server and k6 it left (processes or containers) were removed by a worker of this host";

/**
 * Kills what dead workers of this host left (servers, k6, fixtures: processes by their owner marker,
 * containers by their owner label) and fails the cells they ran. Live workers' are kept. The sweep
 * at start says whether the engine answered; without one only docker cells fail (with the reason).
 */
export async function startOrphanSweeps(input: {
  db: Db;
  publisher: Redis;
  log: Logger;
  hostId: string;
  removeOrphanContainers: () => Promise<string[]>;
}): Promise<{ beforeCell: () => Promise<void> }> {
  const { db, publisher, log, hostId, removeOrphanContainers } = input;
  const sweep = async (containers: Promise<string[]>) => {
    const orphanCells = new Set([...(await reapOrphanProcesses(hostId)), ...(await containers)]);
    for (const cellId of orphanCells) {
      const cell = await db.cell.findUnique({ where: { id: cellId } });
      if (cell?.status === "running") {
        await finishCell({ db, publisher, log }, cell.id, cell.runId, {
          status: "failed",
          error: ORPHANED_CELL,
        });
      }
      log.warn({ cellId }, "removed processes left by a dead worker");
    }
  };
  let dockerReachable = true;
  await sweep(
    removeOrphanContainers().catch((error) => {
      dockerReachable = false;
      log.warn({ err: error }, "Docker engine unreachable: docker cells will fail");
      return [] as string[];
    }),
  );
  /**
   * Before every cell, with the host lock held: a worker killed mid-cell (kill -9) leaves its k6 and
   * server loading the machine, and the next cell here must not be measured beside them. Containers
   * only when the engine answered at start: a worker without one pays nothing for it.
   */
  const beforeCell = () =>
    sweep(
      dockerReachable
        ? Promise.race([
            removeOrphanContainers(),
            sleep(10_000, undefined, { ref: false }).then(() => {
              throw new Error("the Docker engine did not list containers within 10 s");
            }),
          ]).catch((error: Error) => {
            log.warn({ err: error }, "could not look for containers left by dead workers");
            return [] as string[];
          })
        : Promise.resolve([]),
    ).catch((error: Error) => log.warn({ err: error }, "could not remove what dead workers left"));
  return { beforeCell };
}
