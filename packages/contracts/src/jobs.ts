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

export const QUEUE_INGEST = "perflab-ingest";
export const JOB_UPLOAD_INGEST = "upload.ingest";

/** An uploaded k6 output stored in Postgres (the run's upload rows), to be decoded into its run. */
export const ZIngestJob = z.object({ runId: z.string().min(1) });
export type TIngestJob = z.infer<typeof ZIngestJob>;

/**
 * One attempt: the processor records every failure on the run itself, and a worker killed mid-ingest
 * gets the job back as stalled (the ingest writes its rows in one transaction, so it starts over).
 * The job id is `ingest-<run id>`.
 */
export const INGEST_JOB_OPTIONS = Object.freeze({
  attempts: 1,
  removeOnComplete: { age: DAY_SECONDS },
  removeOnFail: { age: 30 * DAY_SECONDS },
});

/** Redis channel on which the web app tells every worker that a run was cancelled: `{"runId": …}`. */
export const CANCEL_CHANNEL = "perflab:cancel";
export const ZCancelMessage = z.object({ runId: z.string().min(1) });

/** The reasons a cancelled cell records. */
export const CANCELLED_BEFORE_RUN = "cancelled before it ran";
export const CANCELLED_WHILE_RUNNING = "cancelled while it ran; the measurement was not kept";
