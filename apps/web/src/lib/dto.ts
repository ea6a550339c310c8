import type {
  TMatrixSpec,
  TPoint,
  ZCellDto,
  ZCellStatus,
  ZCellSummaryDto,
  ZCreatedRun,
  ZLatencyDto,
  ZRunDto,
  ZRunSnapshotEvent,
  ZRunStatus,
} from "@perflab/contracts";
import type { z } from "zod";

/**
 * Shapes sent to the browser and the API: dates as ISO strings, 64-bit counters as numbers. Each is
 * inferred from the zod schema in @perflab/contracts that the OpenAPI document is generated from.
 */

export type RunStatus = z.infer<typeof ZRunStatus>;
export type CellStatus = z.infer<typeof ZCellStatus>;

export const terminalRunStatuses: readonly RunStatus[] = ["succeeded", "failed", "cancelled", "partial"];
export const terminalCellStatuses: readonly CellStatus[] = ["succeeded", "failed", "cancelled"];

export type RunDto = Omit<z.infer<typeof ZRunDto>, "spec"> & { spec: TMatrixSpec };

export type RunListItemDto = Pick<
  RunDto,
  | "id"
  | "name"
  | "source"
  | "status"
  | "cellsTotal"
  | "cellsDone"
  | "cellsFailed"
  | "createdAt"
  | "finishedAt"
> & {
  servers: string[];
  /** The name of the API token that sent it, if any. */
  tokenName: string | null;
  /** Cells that ended with a result: what an ended run's progress bar counts. */
  cellsSucceeded: number;
};

export type LatencyDto = z.infer<typeof ZLatencyDto>;
export type CellSummaryDto = z.infer<typeof ZCellSummaryDto>;
export type CellDto = z.infer<typeof ZCellDto>;

/** One second (or bucket) of a cell, as stored or as published live: one shape, ZPoint. */
export type PointDto = TPoint;

export type RunSnapshotEvent = Omit<z.infer<typeof ZRunSnapshotEvent>, "run"> & { run: RunDto };

export type CreatedRunDto = z.infer<typeof ZCreatedRun>;
