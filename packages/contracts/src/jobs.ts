import { z } from "zod";

export const QUEUE_CELLS = "perflab-cells";
export const JOB_CELL_RUN = "cell.run";

/** Payloads carry ids, not records; the processor parses it again. */
export const ZCellJob = z.object({ runId: z.string().min(1), cellId: z.string().min(1) });
export type TCellJob = z.infer<typeof ZCellJob>;

const DAY_SECONDS = 24 * 3600;

/**
 * A benchmark is never retried: a second attempt would measure a different machine state. The
 * job id is the cell id, so adding a cell twice is a no-op while its job is kept.
 */
export const CELL_JOB_OPTIONS = Object.freeze({
  attempts: 1,
  removeOnComplete: { age: 7 * DAY_SECONDS },
  removeOnFail: { age: 30 * DAY_SECONDS },
});

/** Redis channel on which the web app tells every worker that a run was cancelled: `{"runId": …}`. */
export const CANCEL_CHANNEL = "perflab:cancel";
export const ZCancelMessage = z.object({ runId: z.string().min(1) });

/** The reasons a cancelled cell records. */
export const CANCELLED_BEFORE_RUN = "cancelled before it ran";
export const CANCELLED_WHILE_RUNNING = "cancelled while it ran; the measurement was not kept";
