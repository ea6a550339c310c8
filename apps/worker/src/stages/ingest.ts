import { setTimeout as sleep } from "node:timers/promises";
import type { TK6OutputLine } from "@perflab/contracts";
import {
  type CellAggregator,
  K6OutputDecoder,
  type ProcessReading,
  type ResourceSample,
} from "@perflab/metrics";
import type { CellContext } from "../cell/context.ts";
import { CellFailure, loadFailure } from "../cell/errors.ts";
import type { ServerWatch } from "../drivers/placement.ts";
import type { K6Result } from "./k6.ts";
import type { CellScenario, StartedLoad } from "./load.ts";
import { PointSink } from "./points.ts";
import { startSampler } from "./sampler.ts";
import type { StartedServer } from "./start.ts";

export type Ingested = {
  aggregator: CellAggregator;
  k6Result: K6Result;
  /** The server's RSS and descriptors at each second of the whole test, warm-up included. */
  serverReadings: ProcessReading[];
};

/**
 * k6's per-second output as it arrives, through the decoder uploads use (the same checks and
 * aggregation): its seconds written and published as they are ready, and the measured window.
 */
class LoadIngest {
  readonly decoder: K6OutputDecoder;
  readonly sink: PointSink;
  private loadStartT: number | null = null;
  private lineNumber = 0;
  /**
   * The database did not take a second within PERFLAB_DB_RETRY_MS: the cell has failed, so its
   * load stops now; the write's error, not k6's kill, is the reason given.
   */
  sinkFailed = false;
  windowPlanned = false;
  // Written beside the reading, not in its way: a database slow to answer must not stall k6's output.
  windowWritten: Promise<unknown> = Promise.resolve(null);
  private measuring = false;
  sawEnd = false;

  constructor(
    private readonly ctx: CellContext,
    scenario: CellScenario,
    load: StartedLoad,
  ) {
    const { cell, deps } = ctx;
    this.sink = new PointSink(
      { db: deps.db, publisher: deps.publisher, log: ctx.log, retryMs: deps.env.PERFLAB_DB_RETRY_MS },
      { id: cell.id, runId: cell.runId },
      () => this.loadStartT,
      (error) => {
        this.sinkFailed = true;
        ctx.log.error({ err: error }, "the cell's seconds could not be written: stopping its load");
        load.k6.kill();
      },
      { batchSeconds: deps.env.PERFLAB_LIVE_BATCH_SECONDS },
    );
    this.decoder = new K6OutputDecoder({
      operationMethod: scenario.entry.operationMethod,
      measuredSeconds: cell.durationSeconds,
      warmupSeconds: cell.warmupSeconds,
      onSeconds: (points) => this.sink.push(points),
    });
  }

  get aggregator(): CellAggregator {
    return this.decoder.aggregator;
  }

  // The measured window: the warm-up counts from the test run's start, as the script's phase tag does.
  private planWindow(testStartMs: number): Promise<unknown> {
    const { cell, deps } = this.ctx;
    this.windowPlanned = true;
    const measureStart = testStartMs + cell.warmupSeconds * 1000;
    return this.ctx
      .durable("the measured window", () =>
        deps.db.cell.update({
          where: { id: cell.id },
          data: {
            measureStartedAt: new Date(measureStart),
            measureEndedAt: new Date(measureStart + cell.durationSeconds * 1000),
          },
        }),
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
  }

  onLine(line: TK6OutputLine): void {
    this.decoder.accept(++this.lineNumber, line);
    if (line.type === "start") {
      this.loadStartT = Math.floor(line.t / 1000);
    } else if (line.type === "interval") {
      if (!this.measuring && line.groups.some((g) => g.phase === "measure")) {
        this.measuring = true;
        void this.ctx.stage("measuring");
      }
    } else if (line.type === "end") {
      this.sawEnd = true;
    }
    // The decoder planned the window (a run line, or a second with requests before any): record it.
    const testStartMs = this.decoder.testStartMs;
    if (!this.windowPlanned && testStartMs !== null) this.windowWritten = this.planWindow(testStartMs);
  }

  flushReady(): void {
    this.decoder.takeReady(Math.floor(Date.now() / 1000));
  }

  /** k6 has ended: a window not planned yet (no iteration began) counts from its start line. */
  flushAll(): void {
    const testStartMs = this.decoder.planUnplanned();
    if (!this.windowPlanned && testStartMs !== null) this.windowWritten = this.planWindow(testStartMs);
    this.decoder.takeAll();
  }
}

/**
 * Reads k6's output to its end while the sampler reads the server, k6 and the machine each second.
 * Fails the cell when the load failed or its data is incomplete, naming the cause over its symptoms.
 */
export async function ingestLoad(
  ctx: CellContext,
  scenario: CellScenario,
  started: StartedServer,
  watch: ServerWatch,
  load: StartedLoad,
): Promise<Ingested> {
  const ingest = new LoadIngest(ctx, scenario, load);
  const serverReadings: ProcessReading[] = [];
  const sampler = startSampler({
    server: started.running,
    k6Resources: load.k6.resources,
    runtime: watch.runtime,
    ...(watch.hostCpu ? { hostCpu: watch.hostCpu } : {}),
    onSample: (sample) => {
      ingest.aggregator.addResources(sample);
      keepReading(serverReadings, sample);
    },
  });
  const flushTimer = setInterval(() => ingest.flushReady(), 1000);
  const read = await readOutput(load, ingest, async () => {
    clearInterval(flushTimer);
    await sampler.stop();
  });
  return { ...(await settleIngest(ctx, load, ingest, read)), serverReadings };
}

/**
 * A sample's server reading as a storm's figures take it (stormFigures): read just after the
 * second it closes, so at that second's end.
 */
function keepReading(readings: ProcessReading[], sample: ResourceSample): void {
  if (sample.rssBytes === null) return;
  readings.push({ atMs: (sample.t + 1) * 1000, rssBytes: sample.rssBytes, fds: sample.fds ?? null });
}

type ReadEnd = {
  /** Reading failed (a line not in perflab's shape, the database): the reason, unless a better one. */
  readError: unknown;
  stoppedForReadError: boolean;
};

async function readOutput(load: StartedLoad, ingest: LoadIngest, stopSampling: () => Promise<void>) {
  const { k6 } = load;
  const end: ReadEnd = { readError: null, stoppedForReadError: false };
  try {
    for await (const line of k6.lines) ingest.onLine(line);
  } catch (error) {
    end.readError = error;
  } finally {
    await stopSampling();
    load.detach();
    if (end.readError) {
      // k6 must not go on loading the host, or the port; its exit is then ours, not its failure.
      end.stoppedForReadError = !load.k6Ended();
      k6.kill();
      const stopped = await Promise.race([k6.done.then(() => true), sleep(10_000).then(() => false)]);
      if (!stopped) k6.kill(true);
    }
  }
  return end;
}

async function settleIngest(ctx: CellContext, load: StartedLoad, ingest: LoadIngest, read: ReadEnd) {
  const { k6 } = load;
  const k6Result = await k6.done;
  const skipped = k6.skippedLines();
  if (skipped.count > 0) ctx.log.warn({ skipped }, "skipped k6 output lines that were not JSON");
  ingest.flushAll();
  const flushed = ingest.sink.flush().then(
    () => null,
    (error: unknown) => error,
  );
  // The cause wins over its symptoms: a stop, the server's exit or k6's own failure explain a
  // broken or cut-off output better than the parse or write error it left.
  const failure = loadFailure({
    signal: ctx.signal,
    serverExit: load.serverExit(),
    k6: read.stoppedForReadError || ingest.sinkFailed ? null : k6Result,
  });
  const flushError = await flushed;
  const windowError = await ingest.windowWritten;
  if (failure) throw new CellFailure(failure);
  // The load was stopped for the write that failed: a cut-off output is its symptom.
  if (ingest.sinkFailed && flushError) throw flushError;
  if (read.readError) throw read.readError;
  if (flushError) throw flushError;
  if (windowError) throw windowError;
  // No result from a partial stream: k6's last line and its own count must both agree with the ingest.
  if (!ingest.sawEnd) {
    throw new CellFailure(
      "k6's per-second output ended before k6 finished: the measurement is incomplete and was not kept",
    );
  }
  return { aggregator: ingest.aggregator, k6Result };
}
