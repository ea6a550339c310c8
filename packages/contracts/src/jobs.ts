import { z } from "zod";

export const QUEUE_CELLS = "perflab-cells";
export const JOB_CELL_RUN = "cell.run";

/** Payloads carry ids, not records; the processor parses it again. */
export const ZCellJob = z.object({ runId: z.string().min(1), cellId: z.string().min(1) });
export type TCellJob = z.infer<typeof ZCellJob>;
