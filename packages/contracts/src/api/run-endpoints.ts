import { z } from "zod";
import { ZDriverId } from "../matrix.ts";
import { ZPoint } from "../points.ts";
import { ZServerListEntry } from "../registered-server.ts";
import { ZCellDto } from "./cell.ts";
import { ZRunDto } from "./run.ts";

/** GET /api/v1/runs/{id}. */
export const ZRunDetail = z.object({ run: ZRunDto, cells: z.array(ZCellDto) });

/** 202 of POST /api/v1/runs/{id}/cancel. */
export const ZCancelledRun = z.object({
  run: ZRunDto,
  /** Queued cells that were cancelled before they ran. */
  cancelledCells: z.array(z.string()),
  /** Cells running at that moment; their workers stop them and record them `cancelled`. */
  runningCells: z.number().int(),
});

/** The first event of GET /api/v1/runs/{id}/events; live `point`, `cell` and `run` events follow. */
export const ZRunSnapshotEvent = z.object({
  type: z.literal("snapshot"),
  run: ZRunDto,
  cells: z.array(ZCellDto),
  /** Stored points per cell id, oldest first. */
  points: z.record(z.string(), z.array(ZPoint)),
});

/** 201 of POST /api/v1/matrices. */
export const ZCreatedRun = z.object({
  runId: z.string(),
  cells: z.array(
    z.object({
      id: z.string(),
      index: z.number().int(),
      serverName: z.string(),
      scenario: z.string(),
      vus: z.number().int().nullable(),
      rate: z.number().int().nullable(),
      maxVus: z.number().int().nullable(),
      round: z.number().int(),
    }),
  ),
});

/** GET /api/v1/servers. */
export const ZServerList = z.object({
  /** The lab's servers and variants, then the caller's workspace's registered servers. */
  servers: z.array(ZServerListEntry),
  /**
   * The driver this lab's run form starts on (PERFLAB_DEFAULT_DRIVER; docker in docker-compose.yml),
   * which its studies' quick variants use. A matrix without `driver` still runs locally.
   */
  defaultDriver: ZDriverId,
});
