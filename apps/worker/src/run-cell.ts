import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CANCELLED_WHILE_RUNNING,
  httpRouteEnv,
  isScenarioId,
  mcpToolCallEnv,
  needsFixtures,
  runChannel,
  type ScenarioId,
  scenarioCatalog,
  type TLiveEvent,
  type TLoadLevel,
  ZHttpRouteParams,
  ZMcpToolCallParams,
} from "@perflab/contracts";
import { serverBuildFailure } from "@perflab/contracts/server-builds";
import { type CatalogEntry, loadServerCatalog, withVariants } from "@perflab/contracts/server-catalog";
import { type Db, Prisma, type RunStatus, writeCellRollups } from "@perflab/db";
import {
  CellAggregator,
  type CellSummaryData,
  cellSummaryRecord,
  isLoadGeneratorSaturated,
  otherWorkMeasured,
} from "@perflab/metrics";
import type { Redis } from "ioredis";
import { withDbRetry } from "./db-retry.ts";
import { CELL_ENV, OWNER_ENV, ownerMarker } from "./drivers/orphans.ts";
import type { CellLimits, Driver, DriverId, ExitInfo, RunningServer } from "./drivers/types.ts";
import type { WorkerEnv } from "./env.ts";
import { engineIsLocal, freePort, hostFingerprint } from "./host.ts";
import type { Logger } from "./logger.ts";
import type { FixtureBackends } from "./stages/fixtures.ts";
import { waitForHealthy } from "./stages/health.ts";
import type { K6Result, K6Runner } from "./stages/k6.ts";
import { PointSink } from "./stages/points.ts";
import { fetchRuntime, startSampler } from "./stages/sampler.ts";

export type CellDeps = {
  db: Db;
  publisher: Redis;
  env: WorkerEnv;
  drivers: Record<DriverId, Driver>;
  fixtures: FixtureBackends;
  k6: K6Runner;
  k6Version: string;
  /**
   * For servers on a remote engine: k6 in a container on that engine (started on first need), and the
   * fixture backends as containers there. Null when the engine is this machine's.
   */
  engine?: {
    k6: () => Promise<{ runner: K6Runner; version: string }>;
    fixtures: FixtureBackends;
  } | null;
  log: Logger;
  /**
   * Another live worker running this cell, if any: a job comes back while its worker still runs it
   * when Redis was away longer than the job's lock, and must not fail a measurement under way.
   */
  cellOwner?: (cellId: string) => Promise<string | null>;
};

/** A failure with a reason a user can act on; it ends the cell `failed`, and the run goes on. */
class CellFailure extends Error {}

/** The abort reason when a user cancelled the cell's run: the cell ends `cancelled`, unmeasured. */
export class CellCancelled extends Error {
  override name = "CellCancelled";
}

/**
 * Thrown when the cell's signal was aborted before the cell was claimed: nothing of it ran, so the
 * worker puts its job back in the queue rather than failing a cell it never started.
 */
export class CellNotStarted extends Error {
  override name = "CellNotStarted";
}

const SHUT_DOWN_DURING = "the worker was shut down during the cell";
/** The least a cell's end waits for the database (see PERFLAB_DB_RETRY_MS for the rest). */
const FINISH_RETRY_MIN_MS = 60_000;

export type CellOutcome = { status: "succeeded" | "failed" | "cancelled"; error?: string };

export async function publish(deps: Pick<CellDeps, "publisher" | "log">, runId: string, event: TLiveEvent) {
  await deps.publisher.publish(runChannel(runId), JSON.stringify(event)).catch((error) => {
    deps.log.warn({ err: error }, "live publish failed");
  });
}

/**
 * Runs one cell end to end: start server → health → k6 + sampler → per-second points → summary →
 * stop server → cooldown. Every outcome ends the cell in a terminal state with its reason.
 */
export async function runCell(
  deps: CellDeps,
  input: { cellId: string; signal?: AbortSignal },
): Promise<void> {
  const { db, env, log } = deps;
  const cell = await db.cell.findUnique({ where: { id: input.cellId }, include: { run: true } });
  if (!cell) {
    log.warn({ cellId: input.cellId }, "cell no longer exists; skipping");
    return;
  }
  if (cell.status === "succeeded" || cell.status === "failed" || cell.status === "cancelled") return;
  if (cell.status === "running") {
    const owner = await deps.cellOwner?.(cell.id).catch(() => null);
    if (owner) {
      log.warn(
        { cellId: cell.id, owner },
        "the cell's job came back while another worker still runs the cell (Redis was away longer than the job's lock); leaving the cell to it",
      );
      return;
    }
    // The job came back after its worker stopped mid-cell: its measurements are incomplete.
    await finishCell(deps, cell.id, cell.runId, {
      status: "failed",
      error: "the worker running this cell stopped before the cell finished (worker crash or kill)",
    });
    return;
  }

  const cellLog = log.child({ cellId: cell.id, runId: cell.runId, server: cell.serverName });
  // The writes from the load's start on: a database that stops answering meanwhile costs a delay,
  // not the measurement (each is idempotent, so a retry after a lost acknowledgement is harmless).
  const durable = <T>(what: string, fn: () => Promise<T>) =>
    withDbRetry(what, fn, { log: cellLog, retryMs: env.PERFLAB_DB_RETRY_MS });
  const stage = (name: string) =>
    publish(deps, cell.runId, { type: "cell", cellId: cell.id, status: "running", stage: name });
  const server = withVariants(loadServerCatalog(env.PERFLAB_SERVERS_DIR)).find(
    (s) => s.name === cell.serverName,
  );
  const driver = deps.drivers[cell.driver as DriverId];
  // Stopped while the cell was read (a SIGTERM during the sweep before it, say), or the host lock
  // was lost: not claimed, so not run. A cancel needs nothing: the claim below finds it cancelled.
  if (input.signal?.aborted && !(input.signal.reason instanceof CellCancelled))
    throw new CellNotStarted(abortReason(input.signal, "stopped before the cell started"));
  const startedAt = new Date();
  // Only a cell still queued starts: the run may have been cancelled since it was read.
  const claimed = await db.cell.updateMany({
    where: { id: cell.id, status: "queued" },
    data: {
      status: "running",
      attempts: { increment: 1 },
      startedAt,
      hostFingerprint: hostFingerprint(env.PERFLAB_HOST_ID),
      k6Version: deps.k6Version,
      serverBuild: server ? serverBuild(server, null) : undefined,
    },
  });
  if (claimed.count === 0) {
    log.info({ cellId: cell.id }, "cell is no longer queued (cancelled); skipping");
    return;
  }
  await db.run.updateMany({
    where: { id: cell.runId, status: "queued" },
    data: { status: "running", startedAt },
  });
  await publish(deps, cell.runId, {
    type: "run",
    runId: cell.runId,
    status: "running",
    cellsDone: cell.run.cellsDone,
    cellsTotal: cell.run.cellsTotal,
  });
  cellLog.info({ driver: cell.driver, loadLevel: cell.loadLevel }, "cell started");
  await stage("starting server");

  const workDir = path.join(env.PERFLAB_WORK_DIR, cell.id);
  await mkdir(workDir, { recursive: true });
  const marker = { [OWNER_ENV]: ownerMarker(env.PERFLAB_HOST_ID), [CELL_ENV]: cell.id };
  const { signal } = input;
  // A stop, cancel or lost host lock ends the cell at the next step, whichever stage it is in.
  const checkAbort = () => {
    if (signal?.aborted) throw new CellFailure(abortReason(signal, SHUT_DOWN_DURING));
  };
  let running: RunningServer | null = null;
  // A server that exits before perflab asks it to stop failed the cell, even after k6 ended.
  let stopRequested = false;
  let exitedOnItsOwn: ExitInfo | null = null;
  let summaryWritten = false;
  let outcome: CellOutcome = {
    status: "failed",
    error: "unknown failure",
  };
  try {
    if (signal?.aborted)
      throw new CellFailure(abortReason(signal, "the worker was shut down before the cell started"));
    if (!server) throw new CellFailure(`server "${cell.serverName}" is not in the catalog on this worker`);
    if (!driver) throw new CellFailure(`driver "${cell.driver}" is not available on this worker`);
    // The local driver runs the native build: a failed one would start a stale binary or none.
    const buildFailure =
      driver.id === "local" ? serverBuildFailure(env.PERFLAB_BUILD_DIR, server.base) : null;
    if (buildFailure) throw new CellFailure(`the ${server.base} server did not build (${buildFailure})`);
    // A server on a remote engine is loaded, fed and watched from that machine; a local one from here.
    const onEngine = driver.remote === true;
    if (!onEngine && deps.k6.kind === "docker" && !engineIsLocal(env.DOCKER_HOST ?? "")) {
      throw new CellFailure(
        `k6 runs in a container on the Docker engine at DOCKER_HOST=${env.DOCKER_HOST}, another machine, and load traffic never leaves a machine's loopback: a local server needs PERFLAB_K6_RUNNER=local`,
      );
    }
    if (onEngine && !deps.engine) throw new CellFailure("this worker has no remote engine set up");
    const fixtures = onEngine ? deps.engine!.fixtures : deps.fixtures;
    const k6Runner = onEngine
      ? await deps
          .engine!.k6()
          .catch((error: Error) => {
            throw new CellFailure(`k6 could not start on the Docker engine: ${error.message}`);
          })
          .then(async (k6) => {
            await db.cell.update({ where: { id: cell.id }, data: { k6Version: k6.version } });
            return k6.runner;
          })
      : deps.k6;
    if (!isScenarioId(cell.scenario)) {
      throw new CellFailure(`scenario "${cell.scenario}" is not known to this worker`);
    }
    const scenarioId = cell.scenario;
    const entry = scenarioCatalog[scenarioId];
    const params = entry.params.parse(cell.params);
    const level = cell.loadLevel as TLoadLevel;

    let backends: Record<string, string> = {};
    if (needsFixtures(scenarioId, params)) {
      await stage("resetting fixtures");
      backends = await abortable(
        fixtures.ensure().catch((error: Error) => {
          throw new CellFailure(`fixtures could not start: ${error.message}`);
        }),
        signal,
      );
      await abortable(
        fixtures.reset(signal).catch((error: Error) => {
          throw new CellFailure(error.message);
        }),
        signal,
      );
      await stage("starting server");
    }
    checkAbort();

    // A remote engine's driver picks a port free on its machine.
    const requestedPort = onEngine ? 0 : await freePort();
    running = await driver
      .start({
        server,
        cellId: cell.id,
        runId: cell.runId,
        port: requestedPort,
        env: { ...backends, ...marker },
        limits: (cell.limits as CellLimits | null) ?? undefined,
      })
      .catch((error: Error) => {
        cellLog.warn({ err: error }, "the server could not start");
        throw new CellFailure(`the server could not start: ${error.message}`);
      });
    const started = running;
    void running.exited.then((info) => {
      if (!stopRequested) exitedOnItsOwn = info;
    });
    checkAbort();
    const port = started.port ?? requestedPort;
    const baseUrl = `http://127.0.0.1:${port}`;
    const applied = running.appliedLimits;
    const enforced = applied
      ? {
          cpus: applied.cpus,
          memoryMb: Math.round(applied.memoryBytes / 2 ** 20),
          ...(applied.cpuset ? { cpuset: applied.cpuset } : {}),
        }
      : null;
    const build = serverBuild(server, running.image ?? null, running.imageId ?? null);
    await db.cell.update({
      where: { id: cell.id },
      data: {
        port,
        // What was enforced, not what was asked (the run's spec keeps that): none for a plain process.
        limits: enforced ?? Prisma.DbNull,
        serverBuild: build,
        // Measured on the engine's machine, not the worker's.
        ...(running.machine ? { hostFingerprint: running.machine } : {}),
      },
    });
    await publish(deps, cell.runId, {
      type: "cell",
      cellId: cell.id,
      status: "running",
      stage: "waiting for health",
      started: {
        limits: enforced && { cpuset: null, ...enforced },
        image: running.image ?? null,
        imageId: running.imageId ?? null,
      },
    });
    const observer = running.observer;
    const healthyAt = await abortable(
      (observer
        ? observer.waitHealthy({ timeoutMs: env.PERFLAB_HEALTH_TIMEOUT_MS, exited: running.exited })
        : waitForHealthy({
            baseUrl,
            mcpPath: server.mcpPath,
            timeoutMs: env.PERFLAB_HEALTH_TIMEOUT_MS,
            exited: running.exited,
            ...(signal ? { signal } : {}),
          })
      ).catch((error: Error) => {
        throw new CellFailure(error.message);
      }),
      signal,
    );
    const runtimeUrl = `${baseUrl}/debug/runtime`;
    const runtime = observer
      ? await observer.firstRuntime()
      : await fetch(runtimeUrl, { signal: AbortSignal.timeout(1_000) })
          .then((r) => (r.ok ? r.json() : null))
          .catch(() => null);
    // The idle reading is the healthy server's, not a sample from before it started.
    const idle = await running.resources({ notBefore: healthyAt });
    const runtimeVersion = reportedRuntimeVersion(runtime);
    await db.cell.update({
      where: { id: cell.id },
      data: {
        // The manifest says `python 3.11`; the interpreter that answered may be 3.11.7 or a 3.12.
        ...(runtimeVersion ? { serverBuild: { ...build, runtimeVersion } } : {}),
        healthyAt: new Date(healthyAt),
        coldStartMs: healthyAt - running.startedAt,
        idleRssBytes: idle ? BigInt(idle.rssBytes) : null,
        parallelism:
          runtime && typeof runtime === "object" && "parallelism" in runtime
            ? (runtime.parallelism as never)
            : undefined,
      },
    });

    // Server exits during the load are failures, whatever k6 reports.
    let serverExit: ExitInfo | null = null;
    running.exited.then((info) => {
      serverExit = info;
    });

    await stage(cell.warmupSeconds > 0 ? "warm-up" : "measuring");
    checkAbort();
    const k6 = await k6Runner
      .run({
        workDir,
        script: path.join(env.PERFLAB_SCENARIOS_DIR, entry.script),
        env: {
          ...marker,
          ...scenarioEnv(scenarioId, params, {
            target: baseUrl,
            mcpPath: server.mcpPath,
            ...("rate" in level ? { rate: level.rate, maxVus: level.maxVus } : { vus: level.vus }),
            durationSec: cell.durationSeconds,
            warmupSec: cell.warmupSeconds,
          }),
        },
        timeoutMs: (cell.warmupSeconds + cell.durationSeconds + 90) * 1000,
        cell: { id: cell.id, runId: cell.runId, owner: marker[OWNER_ENV] },
      })
      .catch((error: Error) => {
        throw new CellFailure(`k6 could not start: ${error.message}`);
      });
    const onAbort = () => k6.kill();
    signal?.addEventListener("abort", onAbort);
    // An abort while k6 was starting has fired already: it would never reach the listener.
    if (signal?.aborted) k6.kill();
    // A server that dies mid-load ends the measurement: k6 would only count refused connections.
    void running.exited.then(() => k6.kill());
    let k6Ended = false;
    void k6.done.then(() => {
      k6Ended = true;
    });
    const aggregator = new CellAggregator({
      operationMethod: entry.operationMethod,
      measuredSeconds: cell.durationSeconds,
    });
    let loadStartT: number | null = null;
    // The database did not take a second within PERFLAB_DB_RETRY_MS: the cell has failed, so its
    // load stops now; the write's error, not k6's kill, is the reason given.
    let sinkFailed = false;
    const sink = new PointSink(
      { db, publisher: deps.publisher, log: cellLog, retryMs: env.PERFLAB_DB_RETRY_MS },
      { id: cell.id, runId: cell.runId },
      () => loadStartT,
      (error) => {
        sinkFailed = true;
        cellLog.error({ err: error }, "the cell's seconds could not be written: stopping its load");
        k6.kill();
      },
    );
    const sampler = startSampler({
      server: running,
      k6Resources: k6.resources,
      runtime: observer ? observer.runtime : () => fetchRuntime(runtimeUrl),
      ...(observer ? { hostCpu: observer.hostCpu } : {}),
      onSample: (sample) => aggregator.addResources(sample),
    });
    const flushTimer = setInterval(
      () => sink.push(aggregator.takeReadyPoints(Math.floor(Date.now() / 1000))),
      1000,
    );
    /** k6's start line (before VU initialisation): the window's origin only if no run line came. */
    let k6StartMs: number | null = null;
    let windowPlanned = false;
    // The measured window: the warm-up counts from the test run's start, as the script's phase tag does.
    const planWindow = (runStartMs: number): Promise<unknown> => {
      windowPlanned = true;
      const measureStart = runStartMs + cell.warmupSeconds * 1000;
      aggregator.setMeasureStart(measureStart);
      return durable("the measured window", () =>
        db.cell.update({
          where: { id: cell.id },
          data: {
            measureStartedAt: new Date(measureStart),
            measureEndedAt: new Date(measureStart + cell.durationSeconds * 1000),
          },
        }),
      ).then(
        () => null,
        (error: unknown) => error,
      );
    };
    let measuring = false;
    let sawEnd = false;
    // Reading failed (a line not in perflab's shape, the database): the reason, unless a better one.
    let readError: unknown = null;
    let stoppedForReadError = false;
    // Written beside the reading, not in its way: a database slow to answer must not stall k6's output.
    let windowWritten: Promise<unknown> = Promise.resolve(null);
    try {
      for await (const line of k6.lines) {
        if (line.type === "start") {
          loadStartT = Math.floor(line.t / 1000);
          k6StartMs = line.t;
        } else if (line.type === "run") {
          windowWritten = planWindow(line.t);
        } else if (line.type === "interval") {
          aggregator.addInterval(line);
          if (!measuring && line.groups.some((g) => g.phase === "measure")) {
            measuring = true;
            void stage("measuring");
          }
        } else if (line.type === "end") {
          sawEnd = true;
        }
      }
    } catch (error) {
      readError = error;
    } finally {
      clearInterval(flushTimer);
      await sampler.stop();
      signal?.removeEventListener("abort", onAbort);
      if (readError) {
        // k6 must not go on loading the host, or the port; its exit is then ours, not its failure.
        stoppedForReadError = !k6Ended;
        k6.kill();
        const stopped = await Promise.race([k6.done.then(() => true), sleep(10_000).then(() => false)]);
        if (!stopped) k6.kill(true);
      }
    }
    const k6Result = await k6.done;
    // No iteration began (k6 failed in its init, or was stopped before): the plan from its start.
    if (!windowPlanned && k6StartMs !== null) windowWritten = planWindow(k6StartMs);
    const skipped = k6.skippedLines();
    if (skipped.count > 0) cellLog.warn({ skipped }, "skipped k6 output lines that were not JSON");
    sink.push(aggregator.takeAllPoints());
    const flushed = sink.flush().then(
      () => null,
      (error: unknown) => error,
    );
    // The cause wins over its symptoms: a stop, the server's exit or k6's own failure explain a
    // broken or cut-off output better than the parse or write error it left.
    const failure = loadFailure({
      signal,
      serverExit: serverExit as ExitInfo | null,
      k6: stoppedForReadError || sinkFailed ? null : k6Result,
    });
    const flushError = await flushed;
    const windowError = await windowWritten;
    if (failure) throw new CellFailure(failure);
    // The load was stopped for the write that failed: a cut-off output is its symptom.
    if (sinkFailed && flushError) throw flushError;
    if (readError) throw readError;
    if (flushError) throw flushError;
    if (windowError) throw windowError;
    // No result from a partial stream: k6's last line and its own count must both agree with the ingest.
    if (!sawEnd) {
      throw new CellFailure(
        "k6's per-second output ended before k6 finished: the measurement is incomplete and was not kept",
      );
    }
    const summary = aggregator.summary({ durationSec: cell.durationSeconds });
    const k6Requests = k6MeasuredRequests(k6Result.summary);
    if (k6Requests === null) {
      throw new CellFailure(
        "k6's end-of-test summary has no request count for the measured window, so perflab's count could not be checked against it: the result was not kept",
      );
    }
    if (k6Requests !== summary.requests) {
      throw new CellFailure(
        `perflab ingested ${summary.requests} measured requests but k6 counted ${k6Requests}: output was lost, the result was not kept`,
      );
    }
    const saturated = isLoadGeneratorSaturated({
      k6CpuAvgPct: summary.k6CpuAvgPct,
      serverCpuAvgPct: summary.cpuAvgPct,
      hostCpuAvgPct: summary.hostCpuAvgPct,
      cores: (started.machine ?? hostFingerprint(env.PERFLAB_HOST_ID)).cores,
      otherWorkMeasured: otherWorkMeasured(cell.driver, needsFixtures(scenarioId, params)),
    });
    // The drops of the measured window, from the per-second lines, as every other number of the summary.
    const droppedCalls = "rate" in level ? (summary.droppedCalls ?? k6DroppedCalls(k6Result.summary)) : null;
    const written = await durable("the summary", () =>
      writeSummary(db, cell.id, summary, k6Requests, droppedCalls, saturated),
    );
    if (!written) {
      cellLog.warn("the cell was ended elsewhere while it ran; its summary was not written");
      throw new CellFailure(
        "the cell was no longer running when its summary was ready (another worker ended it); the summary was not written",
      );
    }
    summaryWritten = true;
    outcome = { status: "succeeded" };
  } catch (error) {
    const reason =
      error instanceof CellFailure ? error.message : `internal error: ${(error as Error).message}`;
    if (!(error instanceof CellFailure)) cellLog.error({ err: error }, "cell failed unexpectedly");
    outcome =
      input.signal?.reason instanceof CellCancelled
        ? { status: "cancelled", error: CANCELLED_WHILE_RUNNING }
        : { status: "failed", error: reason };
  } finally {
    if (running) {
      await stage("stopping server");
      stopRequested = true;
      let stopped = false;
      try {
        const exit = await running.stop(env.PERFLAB_STOP_GRACE_MS);
        stopped = true;
        const logTail = running.logTail();
        await durable("the server's exit", () =>
          db.cell.update({
            where: { id: cell.id },
            data: { exitCode: exit.exitCode, exitSignal: exit.signal, oomKilled: exit.oomKilled, logTail },
          }),
        );
        // An OOM kill noticed only now (the exit landed after k6 ended, or before health) is still named.
        if (exit.oomKilled && !outcome.error?.startsWith("OOM-killed")) {
          const before = outcome.status === "failed" ? ` (seen first as: ${outcome.error})` : "";
          outcome = { status: "failed", error: `OOM-killed: the server went past its memory limit${before}` };
        }
        // An exit of its own that landed after k6 ended (so after the load's checks) still fails the cell.
        // Seen by the driver too: an exit that came before the stop but was reported after it.
        const own = (exitedOnItsOwn as ExitInfo | null) ?? (exit.beforeStop ? exit : null);
        if (own && outcome.status === "succeeded") {
          outcome = {
            status: "failed",
            error: `server exited on its own as the load ended (${exitDescription(own)}), before perflab stopped it`,
          };
        }
      } catch (error) {
        // The cell still ends with a reason; the measurement stands only if the server was stopped.
        const what = stopped ? "could not record the server's exit" : "could not stop the server";
        cellLog.error({ err: error }, what);
        const reason = `${what}: ${(error as Error).message}`;
        outcome = { status: "failed", error: outcome.error ? `${outcome.error}; ${reason}` : reason };
      }
      // A summary written before the exit, OOM kill or stop failure was seen is no result any more.
      if (summaryWritten && outcome.status !== "succeeded") {
        await db.cellSummary.deleteMany({ where: { cellId: cell.id } }).catch((error: Error) => {
          cellLog.error({ err: error }, "could not remove the summary of a cell that failed after it");
        });
      }
    }
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  }
  // The result first: a 24-hour cell's rollups take tens of seconds, and a shutdown's grace period
  // must not run out on them with the measured cell still "running" (a restart would fail it).
  // The cell's end is the write that must land (its reason, above all when the database's absence
  // is the reason): it waits at least FINISH_RETRY_MIN_MS, however short the seconds' window.
  await withDbRetry("the cell's end", () => finishCell(deps, cell.id, cell.runId, outcome), {
    log: cellLog,
    retryMs: Math.max(env.PERFLAB_DB_RETRY_MS, FINISH_RETRY_MIN_MS),
  });
  cellLog.info({ status: outcome.status, error: outcome.error }, "cell finished");
  // A long cell's charts read merged buckets rather than every second; derived data, so a failure
  // here only costs those charts their exact percentiles (they fall back to the seconds). Still
  // before the host is released, so the next cell is not measured beside this work. Those skipped
  // below are written by the backfill every worker runs before it takes a cell (as the quick
  // start's stack and compose's migrate step do).
  // A cancel is a user's: the rollups are written. A shutdown must not spend its grace period on
  // them, and a lost host lock means another cell may be measured beside this work.
  if (signal?.aborted && !(signal.reason instanceof CellCancelled)) {
    cellLog.info("stopping: the cell's rollups are left to the backfill of the next worker start");
  } else {
    await writeCellRollups(db, cell.id, { minSeconds: env.PERFLAB_ROLLUP_MIN_SECONDS }).then(
      (rows) => {
        if (rows > 0) cellLog.info({ rows }, "wrote the cell's rollups");
      },
      (error: Error) => cellLog.warn({ err: error }, "could not write the cell's rollups"),
    );
  }
  const cooldownSec = (cell.run.spec as { cooldownSec?: number }).cooldownSec ?? 0;
  if (cooldownSec > 0 && !signal?.aborted) {
    // The cell is already final; cooldown only keeps the host quiet before the next cell, and a
    // shutdown (SIGTERM) must not wait for it.
    await sleep(cooldownSec * 1000, undefined, signal ? { signal } : {}).catch((error: Error) => {
      if (error.name !== "AbortError") throw error;
    });
  }
}

/**
 * The environment of a cell's k6 script: the load (the same for every scenario) and the scenario's
 * own parameters, through the scenario's env builder (which checks them again).
 */
function scenarioEnv(
  scenario: ScenarioId,
  params: unknown,
  load: {
    target: string;
    mcpPath: string;
    vus?: number;
    rate?: number;
    maxVus?: number;
    durationSec: number;
    warmupSec: number;
  },
): Record<string, string> {
  const { mcpPath, ...common } = load;
  switch (scenario) {
    case "mcp-tool-call": {
      const { tool, arguments: args, session, sessionsPerVu, thinkMs } = ZMcpToolCallParams.parse(params);
      return mcpToolCallEnv({ ...common, mcpPath, tool, arguments: args, session, sessionsPerVu, thinkMs });
    }
    case "http-route":
      return httpRouteEnv({ ...common, route: ZHttpRouteParams.parse(params).route });
  }
}

/** What ran, recorded on the cell: the manifest's identity, plus the image once a driver chose one. */
function serverBuild(server: CatalogEntry, image: string | null, imageId: string | null = null) {
  return {
    language: server.language,
    runtime: server.runtime,
    sdk: server.sdk,
    command: server.start.command,
    // A variant's settings (stateless, a cluster) are part of what ran.
    variant: server.variant,
    env: server.start.env,
    image,
    imageId,
    // What the docker driver relaxed for this server's runtime, if its manifest asked.
    ...(server.container ? { container: server.container } : {}),
  };
}

/** `runtime.version` of a server's /debug/runtime (`go1.26.8`, `v20.20.2`, `3.11.7`), or null. */
function reportedRuntimeVersion(runtime: unknown): string | null {
  const inner = runtime && typeof runtime === "object" ? (runtime as { runtime?: unknown }).runtime : null;
  const version = inner && typeof inner === "object" ? (inner as { version?: unknown }).version : null;
  return typeof version === "string" && version.trim() ? version.trim().slice(0, 120) : null;
}

/**
 * Rejects with the abort's reason (as a CellFailure) as soon as `signal` fires, whatever `work` is
 * still doing: a stage that cannot be interrupted itself no longer holds the cell.
 */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CellFailure(abortReason(signal, SHUT_DOWN_DURING)));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Why the load failed, in order of cause: a stop, the server's exit, k6's own failure; or null. */
function loadFailure(input: {
  signal: AbortSignal | undefined;
  serverExit: ExitInfo | null;
  /** Null when perflab itself stopped k6 (its exit is then no failure of k6's). */
  k6: K6Result | null;
}): string | null {
  const { signal, serverExit: exit, k6 } = input;
  if (signal?.aborted) return abortReason(signal, SHUT_DOWN_DURING);
  if (exit?.oomKilled) return "OOM-killed: the server went past its memory limit during the load";
  if (exit) return `server exited during the load (${exitDescription(exit)})`;
  if (k6 && k6.exitCode !== 0)
    return `k6 failed (exit ${k6.exitCode ?? k6.signal}): ${lastLines(k6.logTail, 5)}`;
  return null;
}

function exitDescription(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/** A named reason (the host lock was lost) or, for a plain abort, the worker's shutdown. */
function abortReason(signal: AbortSignal, shutdown: string): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== "AbortError" ? reason.message : shutdown;
}

function lastLines(text: string, n: number): string {
  return text.trim().split("\n").slice(-n).join(" | ");
}

/** k6's own count of the measured window, from the submetric its thresholds expose. */
function k6MeasuredRequests(summary: unknown): number | null {
  const data = summary as { metrics?: Record<string, { values?: { count?: number } }> } | null;
  return data?.metrics?.["http_reqs{phase:measure}"]?.values?.count ?? null;
}

/**
 * Calls k6 did not start for want of a free VU over the whole test, warm-up included (0 when it names
 * none): only for a k6 whose output has no per-second count (PERFLAB_K6_BIN or _IMAGE of an older build).
 */
function k6DroppedCalls(summary: unknown): number {
  const data = summary as { metrics?: Record<string, { values?: { count?: number } }> } | null;
  return data?.metrics?.dropped_iterations?.values?.count ?? 0;
}

/**
 * Writes the summary only onto a cell still `running`: one failed meanwhile (another worker saw it
 * stalled) keeps its reason and gets no late result. Returns whether it was written.
 */
async function writeSummary(
  db: Db,
  cellId: string,
  s: CellSummaryData,
  k6Requests: number | null,
  droppedCalls: number | null,
  saturated: boolean,
): Promise<boolean> {
  const data = {
    ...cellSummaryRecord(s, k6Requests),
    droppedCalls: droppedCalls === null ? null : BigInt(droppedCalls),
  };
  return db.$transaction(async (tx) => {
    // The conditional update locks the row, so the cell cannot end between the check and the write.
    const still = await tx.cell.updateMany({
      where: { id: cellId, status: "running" },
      data: { k6Saturated: saturated },
    });
    if (still.count === 0) return false;
    await tx.cellSummary.upsert({ where: { cellId }, create: { cellId, ...data }, update: data });
    return true;
  });
}

/**
 * Moves a running cell to its terminal state and counts it on the run exactly once; the run ends
 * (succeeded, failed or partial) with its last cell.
 */
export async function finishCell(
  deps: Pick<CellDeps, "db" | "publisher" | "log">,
  cellId: string,
  runId: string,
  outcome: CellOutcome,
): Promise<void> {
  const { db } = deps;
  const run = await db.$transaction(async (tx) => {
    const moved = await tx.cell.updateMany({
      where: { id: cellId, status: { in: ["queued", "running"] } },
      data: { status: outcome.status, error: outcome.error ?? null, finishedAt: new Date() },
    });
    if (moved.count === 0) return "unmoved" as const;
    // Only a succeeded cell has a result. A summary is written before the server is stopped, so a
    // cell that fails after it (an exit or OOM kill seen at the stop, a worker killed in between and
    // its cell failed by the next one) must not keep numbers beside its "failed".
    if (outcome.status !== "succeeded") await tx.cellSummary.deleteMany({ where: { cellId } });
    const updated = await tx.run.update({
      where: { id: runId },
      data: { cellsDone: { increment: 1 }, cellsFailed: { increment: outcome.status === "failed" ? 1 : 0 } },
    });
    if (updated.cellsDone < updated.cellsTotal) return updated;
    // Cancelled by a user while this cell ran: the run stays cancelled and ends now.
    if (updated.status === "cancelled") {
      return tx.run.update({ where: { id: runId }, data: { finishedAt: new Date() } });
    }
    const status =
      updated.cellsFailed === 0
        ? "succeeded"
        : updated.cellsFailed === updated.cellsTotal
          ? "failed"
          : "partial";
    return tx.run.update({ where: { id: runId }, data: { status, finishedAt: new Date() } });
  });
  // A cell already ended (by someone else, or by this very call when a retry follows a commit
  // whose acknowledgement was lost) keeps its status and reason; the live view gets them as stored.
  if (run === "unmoved") {
    deps.log.info({ cellId, outcome }, "the cell had already ended; its state was left as it was");
    const [cell, current] = await Promise.all([
      db.cell.findUnique({ where: { id: cellId }, select: { status: true, error: true } }),
      db.run.findUnique({ where: { id: runId } }),
    ]);
    if (!cell || !current) return;
    await publish(deps, runId, { type: "cell", cellId, status: cell.status, error: cell.error });
    await publish(deps, runId, runEvent(current));
    return;
  }
  await publish(deps, runId, { type: "cell", cellId, status: outcome.status, error: outcome.error ?? null });
  await publish(deps, runId, runEvent(run));
}

const runEvent = (run: { id: string; status: RunStatus; cellsDone: number; cellsTotal: number }) => ({
  type: "run" as const,
  runId: run.id,
  status: run.status,
  cellsDone: run.cellsDone,
  cellsTotal: run.cellsTotal,
});
