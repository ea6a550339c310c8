import {
  CELL_JOB_OPTIONS,
  INGEST_JOB_OPTIONS,
  JOB_CELL_RUN,
  JOB_UPLOAD_INGEST,
  QUEUE_CELLS,
  QUEUE_INGEST,
  type TCellJob,
  type TIngestJob,
  ZCellJob,
  ZIngestJob,
} from "@perflab/contracts";
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

export type IngestQueue = Queue<TIngestJob, unknown, typeof JOB_UPLOAD_INGEST>;

const globalForIngest = globalThis as unknown as { perflabIngestQueue?: IngestQueue };

export function getIngestQueue(): IngestQueue {
  if (!globalForIngest.perflabIngestQueue) {
    const queue: IngestQueue = new Queue(QUEUE_INGEST, {
      connection: createProducerConnection(),
      defaultJobOptions: { ...INGEST_JOB_OPTIONS },
    });
    queue.on("error", (error) => console.error(`[queue ${QUEUE_INGEST}]`, error.message));
    globalForIngest.perflabIngestQueue = queue;
  }
  return globalForIngest.perflabIngestQueue;
}

/** Queues an upload's ingest, job id `ingest-<run id>` (BullMQ ids take no `:`). */
export async function enqueueIngest(queue: IngestQueue, job: TIngestJob, timeoutMs = 5_000): Promise<void> {
  const data = ZIngestJob.parse(job);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`enqueue timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      queue.add(JOB_UPLOAD_INGEST, data, { ...INGEST_JOB_OPTIONS, jobId: `ingest-${data.runId}` }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
