import { z } from "zod";

/** A run's and a cell's statuses, shared by the API's shapes and the live events. */
export const runStatuses = [
  "queued",
  "ingesting",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "partial",
] as const;
export const cellStatuses = ["queued", "running", "succeeded", "failed", "cancelled"] as const;

export const ZRunStatus = z.enum(runStatuses);
export const ZCellStatus = z.enum(cellStatuses);
