import { CELL_JOB_OPTIONS, JOB_CELL_RUN, QUEUE_CELLS, type TCellJob, ZCellJob } from "@perflab/contracts";
import { type BulkJobOptions, Queue } from "bullmq";
import { createProducerConnection } from "./redis";

export const defaultCellJobOptions: Readonly<BulkJobOptions> = CELL_JOB_OPTIONS;

export type CellQueue = Queue<TCellJob, unknown, typeof JOB_CELL_RUN>;

const globalForQueue = globalThis as unknown as { perflabCellQueue?: CellQueue };

export function getCellQueue(): CellQueue {
  if (!globalForQueue.perflabCellQueue) {
    const queue: CellQueue = new Queue(QUEUE_CELLS, {
      connection: createProducerConnection(),
      defaultJobOptions: { ...defaultCellJobOptions },
    });
    // Without a listener an unreachable Redis becomes an unhandled 'error' event.
    queue.on("error", (error) => console.error(`[queue ${QUEUE_CELLS}]`, error.message));
    globalForQueue.perflabCellQueue = queue;
  }
  return globalForQueue.perflabCellQueue;
}

/** Adds one job per cell, job id = cell id, so enqueueing the same cell twice is a no-op. */
export async function enqueueCells(queue: CellQueue, jobs: TCellJob[], timeoutMs = 5_000): Promise<void> {
  const bulk = jobs.map((job) => {
    const data = ZCellJob.parse(job);
    return {
      name: JOB_CELL_RUN as typeof JOB_CELL_RUN,
      data,
      opts: { ...defaultCellJobOptions, jobId: data.cellId },
    };
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`enqueue timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([queue.addBulk(bulk), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
