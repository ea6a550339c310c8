/**
 * runCell's end-to-end path against the real Postgres and Redis, with a server and a k6 whose timing
 * the test controls (a driver and a k6 runner of its own, the interfaces the real ones implement):
 * the moments a real process hits only by chance (a stop during the health wait, a server exiting
 * as the load ends) happen here every time.
 */
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { TK6IntervalLine, TK6OutputLine } from "@perflab/contracts";
import { createDb } from "@perflab/db";
import {
  announceWorker,
  CellCancelled,
  type CellDeps,
  CellNotStarted,
  type Driver,
  type ExitInfo,
  findCellOwner,
  finishCell,
  type K6Result,
  type K6Run,
  type K6Runner,
  logger,
  PointSink,
  type RunningServer,
  runCell,
  type ServerObserver,
  type WorkerEnv,
} from "@perflab/worker/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createLatencyHistogram, encodeHistogram } from "../../packages/metrics/src/histogram.ts";
import { CellAggregator } from "../../packages/metrics/src/index.ts";
import { freePort } from "../../scripts/lib/services.ts";
import { queueRun, testDb, until } from "./helpers.ts";

const log = logger.child({ test: "worker-run-cell" });
log.level = process.env.PERFLAB_TEST_LOGS ? "debug" : "silent";
const publisher = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 3 });
afterAll(async () => {
  await publisher.quit();
});

/** A k6 run whose lines, exit and kills the test drives; unless told otherwise it ends after `runsForMs`. */
class FakeK6 {
  readonly kills: boolean[] = [];
  private readonly queue: (TK6OutputLine | Error)[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private resolveDone!: (result: K6Result) => void;
  readonly done = new Promise<K6Result>((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(private readonly runsForMs = 5_000) {}

  emit(line: TK6OutputLine | Error) {
    this.queue.push(line);
    this.wake?.();
  }

  finish(result: Partial<K6Result> = {}) {
    if (this.ended) return;
    this.ended = true;
    this.wake?.();
    this.resolveDone({ exitCode: 0, signal: null, logTail: "", summary: null, ...result });
  }

  private async *lines(): AsyncIterable<TK6OutputLine> {
    for (;;) {
      const next = this.queue.shift();
      if (next instanceof Error) throw next;
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  run(): K6Run {
    // A real k6 left alone runs its whole warm-up and duration.
    const timer = setTimeout(() => this.finish({ summary: summaryOf(0) }), this.runsForMs);
    void this.done.then(() => clearTimeout(timer));
    return {
      lines: this.lines(),
      done: this.done,
      kill: (force) => {
        this.kills.push(Boolean(force));
        this.finish({ exitCode: force ? null : 105, signal: force ? "SIGKILL" : null });
      },
      resources: async () => null,
      skippedLines: () => ({ count: 0, samples: [] }),
    };
  }
}

/** A server that is healthy when `healthy` says so, exits when told, and records perflab's stops. */
class FakeServer implements RunningServer {
  readonly startedAt = Date.now();
  stops = 0;
  private resolveExit!: (info: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((resolve) => {
    this.resolveExit = resolve;
  });
  readonly observer: ServerObserver;

  constructor(healthy: () => Promise<number>) {
    this.observer = {
      waitHealthy: healthy,
      firstRuntime: async () => null,
      runtime: async () => undefined,
      hostCpu: async () => null,
      close: async () => undefined,
    };
  }

  exit(info: Partial<ExitInfo>) {
    this.resolveExit({ exitCode: null, signal: null, oomKilled: false, ...info });
  }

  async resources() {
    return { cpuSeconds: 0, rssBytes: 1_000_000 };
  }

  async stop() {
    this.stops++;
    this.exit({ exitCode: 0 });
    return this.exited;
  }

  logTail() {
    return "";
  }
}

const REQUESTS = 40;

/** k6's end-of-test summary as the scenario writes it, with its count of measured requests. */
function summaryOf(requests: number) {
  return { metrics: { "http_reqs{phase:measure}": { values: { count: requests } } } };
}

function measuredSecond(requests = REQUESTS): TK6IntervalLine {
  const hist = createLatencyHistogram();
  for (let i = 0; i < requests; i++) hist.recordValue(1_000 + i);
  return {
    type: "interval",
    t: Math.floor(Date.now() / 1000),
    groups: [
      {
        phase: "measure",
        method: "tools/call",
        tool: "echo",
        requests,
        failed: 0,
        opErrors: 0,
        hist: encodeHistogram(hist),
      },
    ],
    iterations: requests,
    dataSent: 100,
    dataReceived: 100,
    vus: 1,
  };
}

/** One cell of the `go` server, queued in Postgres only (no job: nothing but this test runs it). */
async function cell(options: { cooldownSec?: number } = {}) {
  const { runId, cellIds } = await queueRun(
    [{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }],
    { enqueue: false },
  );
  if (options.cooldownSec) {
    await testDb().run.update({ where: { id: runId }, data: { spec: { cooldownSec: options.cooldownSec } } });
  }
  return { runId, cellId: cellIds[0]! };
}

function harness(options: {
  healthy?: () => Promise<number>;
  onK6Run?: () => void;
  /** Called with every live event runCell publishes, before it goes out. */
  onEvent?: (event: { type: string; stage?: string }) => void;
  k6?: FakeK6;
}) {
  const server = new FakeServer(options.healthy ?? (async () => Date.now()));
  const k6 = options.k6 ?? new FakeK6();
  let k6Runs = 0;
  const driver: Driver = { id: "local", start: async () => server };
  const runner: K6Runner = {
    kind: "local",
    location: "fake",
    version: async () => "fake",
    async run() {
      k6Runs++;
      options.onK6Run?.();
      return k6.run();
    },
  };
  const env = {
    PERFLAB_SERVERS_DIR: inject("serversDir"),
    PERFLAB_WORK_DIR: path.join(inject("tmpDir"), "work-run-cell"),
    PERFLAB_SCENARIOS_DIR: path.join(inject("tmpDir"), "no-scenarios"),
    PERFLAB_HOST_ID: `run-cell-test-${process.pid}`,
    PERFLAB_HEALTH_TIMEOUT_MS: 30_000,
    PERFLAB_STOP_GRACE_MS: 1_000,
  } as unknown as WorkerEnv;
  const noFixtures = {
    ensure: () => Promise.reject(new Error("no fixtures in these tests")),
    reset: () => Promise.reject(new Error("no fixtures in these tests")),
    close: async () => undefined,
  };
  const watched = {
    publish: (channel: string, message: string) => {
      options.onEvent?.(JSON.parse(message));
      return publisher.publish(channel, message);
    },
    pipeline: () => publisher.pipeline(),
  } as unknown as Redis;
  const deps: CellDeps = {
    db: testDb(),
    publisher: watched,
    env,
    drivers: { local: driver, docker: driver },
    fixtures: noFixtures,
    k6: runner,
    k6Version: "fake",
    engine: null,
    log,
  };
  return { deps, server, k6, k6Runs: () => k6Runs };
}

/** The cell through runCell with a whole, clean load of one measured second; the cell as it ended. */
async function runOneMeasuredSecond(h: ReturnType<typeof harness>, cellId: string) {
  const running = runCell(h.deps, { cellId });
  await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
  h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
  h.k6.emit(measuredSecond());
  h.k6.emit({ type: "end" });
  h.k6.finish({ summary: summaryOf(REQUESTS) });
  await running;
  return testDb().cell.findUniqueOrThrow({ where: { id: cellId }, include: { summary: true } });
}

describe("a cell stopped before its load", () => {
  it("is left queued, unclaimed, when the worker stopped before claiming it: nothing of it ran", async () => {
    const { cellId } = await cell();
    const shutdown = new AbortController();
    shutdown.abort();
    const h = harness({});
    let starts = 0;
    h.deps.drivers.local = {
      id: "local",
      start: async () => {
        starts++;
        return h.server;
      },
    };
    await expect(runCell(h.deps, { cellId, signal: shutdown.signal })).rejects.toBeInstanceOf(CellNotStarted);
    const after = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect([after.status, after.attempts, after.startedAt, after.error]).toEqual(["queued", 0, null, null]);
    expect([starts, h.k6Runs()]).toEqual([0, 0]);
  });

  it("ends at once when the worker stops during the health wait, and never starts k6", async () => {
    const { cellId } = await cell();
    const shutdown = new AbortController();
    let stoppedAt = 0;
    const h = harness({
      healthy: async () => {
        stoppedAt = Date.now();
        shutdown.abort();
        // Healthy only later: a stop that waited for health would then run the whole load.
        await sleep(3_000);
        return Date.now();
      },
    });
    await runCell(h.deps, { cellId, signal: shutdown.signal });
    const ms = Date.now() - stoppedAt;
    const after = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect([after.status, after.error]).toEqual(["failed", "the worker was shut down during the cell"]);
    expect(ms).toBeLessThan(2_000);
    expect(h.k6Runs()).toBe(0);
    expect(h.server.stops).toBe(1);
  });

  it("kills k6 at once when the run is cancelled while k6 was starting", async () => {
    const { cellId } = await cell();
    const cancel = new AbortController();
    let cancelledAt = 0;
    const h = harness({
      onK6Run: () => {
        cancelledAt = Date.now();
        cancel.abort(new CellCancelled("cancelled by a user"));
      },
    });
    await runCell(h.deps, { cellId, signal: cancel.signal });
    const ms = Date.now() - cancelledAt;
    const after = await testDb().cell.findUniqueOrThrow({
      where: { id: cellId },
      include: { summary: true },
    });
    expect(after.status).toBe("cancelled");
    expect(after.summary).toBeNull();
    // Killed when the cancel was seen, not when its load would have ended.
    expect(h.k6.kills[0]).toBe(false);
    expect(ms).toBeLessThan(2_000);
  });
});

describe("how a cell's load ends", () => {
  it("reports the server's exit, not the unreadable output it left", async () => {
    const { cellId } = await cell();
    const h = harness({});
    const running = runCell(h.deps, { cellId });
    await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    h.server.exit({ exitCode: 3 });
    h.k6.emit(new Error('unexpected k6 output line: {"type":"start"}'));
    await running;
    const after = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect([after.status, after.error]).toEqual(["failed", "server exited during the load (exit code 3)"]);
  });

  it("reports k6's own exit when k6 died before its output broke off", async () => {
    const { cellId } = await cell();
    const h = harness({});
    const running = runCell(h.deps, { cellId });
    await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    h.k6.emit(new Error("unexpected k6 output line: {}"));
    h.k6.finish({ exitCode: null, signal: "SIGKILL", logTail: "killed" });
    await running;
    const after = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect([after.status, after.error]).toEqual(["failed", "k6 failed (exit SIGKILL): killed"]);
  });

  it("refuses a line out of place as an upload's decoder does, naming it, and stops k6", async () => {
    const { cellId } = await cell();
    const h = harness({});
    const running = runCell(h.deps, { cellId });
    await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    await running;
    const after = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect(after.status).toBe("failed");
    expect(after.error).toContain("Line 2 of the k6 output is a second start line");
    expect(h.k6.kills.length).toBeGreaterThan(0);
  });

  it("fails a cell whose server exits on its own just after the load, and keeps no summary", async () => {
    const { cellId } = await cell();
    // The exit lands after the load's checks passed and the summary was written, just before
    // perflab asks the server to stop.
    const h = harness({
      onEvent: (event) => {
        if (event.stage === "stopping server") h.server.exit({ exitCode: 3 });
      },
    });
    const after = await runOneMeasuredSecond(h, cellId);
    expect([after.status, after.error]).toEqual([
      "failed",
      "server exited on its own as the load ended (exit code 3), before perflab stopped it",
    ]);
    expect(after.summary).toBeNull();
    expect(after.exitCode).toBe(3);
  });
});

describe("a server's exit reported only after the stop", () => {
  it("still fails the cell when the driver says the server had exited before perflab stopped it", async () => {
    const { cellId } = await cell();
    const h = harness({});
    // A container that crashed as the load ended: the engine answers the stop "already stopped".
    h.server.stop = async () => {
      h.server.stops++;
      h.server.exit({ exitCode: 139 });
      return { ...(await h.server.exited), beforeStop: true };
    };
    const after = await runOneMeasuredSecond(h, cellId);
    expect([after.status, after.error, after.exitCode]).toEqual([
      "failed",
      "server exited on its own as the load ended (exit code 139), before perflab stopped it",
      139,
    ]);
    expect(after.summary).toBeNull();
  });
});

describe("a cell ended elsewhere while it ran", () => {
  it("gets no late summary: the other worker's reason stands", async () => {
    const { runId, cellId } = await cell();
    const h = harness({});
    const running = runCell(h.deps, { cellId });
    await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    h.k6.emit(measuredSecond());
    // Another worker saw the job stalled (a long Redis outage) and failed the cell.
    const elsewhere = "no worker was running this cell any more (its job was failed)";
    await finishCell({ db: testDb(), publisher, log }, cellId, runId, { status: "failed", error: elsewhere });
    h.k6.emit({ type: "end" });
    h.k6.finish({ summary: summaryOf(REQUESTS) });
    await running;
    const after = await testDb().cell.findUniqueOrThrow({
      where: { id: cellId },
      include: { summary: true },
    });
    expect([after.status, after.error]).toEqual(["failed", elsewhere]);
    expect(after.summary).toBeNull();
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.status, run.cellsDone, run.cellsFailed]).toEqual(["failed", 1, 1]);
  });
});

describe("a cell's job that comes back while its worker still runs it", () => {
  it("is left to the worker that announces it, and failed once no live worker does", async () => {
    const { runId, cellId } = await cell();
    await testDb().cell.update({ where: { id: cellId }, data: { status: "running", startedAt: new Date() } });
    // The cell's owner: a live worker on another host, announcing the cell as its own.
    const owner = await announceWorker({
      redis: publisher,
      hostId: `run-cell-owner-${process.pid}`,
      k6: { version: "fake", runner: "local" },
      engine: "local",
      dockerVersion: async () => ({ Version: "fake" }),
    });
    const h = harness({});
    const deps: CellDeps = {
      ...h.deps,
      cellOwner: (id) => findCellOwner({ redis: publisher, cellId: id, selfId: "this-worker", waitMs: 0 }),
    };
    try {
      owner.setCell({ id: cellId, runId });
      // The job came back to this worker (Redis was away longer than the job's lock): not its cell.
      await until(async () => (await deps.cellOwner!(cellId)) === owner.id, 5_000, "the owner's presence");
      await runCell(deps, { cellId });
      expect(h.k6Runs()).toBe(0);
      const kept = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
      expect([kept.status, kept.error]).toEqual(["running", null]);
    } finally {
      await owner.stop();
    }
    // The owner is gone (a killed worker's key lapses the same way): the cell failed, with why.
    await runCell(deps, { cellId });
    const failed = await testDb().cell.findUniqueOrThrow({ where: { id: cellId } });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/worker running this cell stopped/);
    expect(h.k6Runs()).toBe(0);
  });
});

describe("the cooldown after a cell", () => {
  it("keeps a measured cell, and ends at once when the worker stops", async () => {
    const { cellId } = await cell({ cooldownSec: 600 });
    const shutdown = new AbortController();
    const h = harness({});
    const running = runCell(h.deps, { cellId, signal: shutdown.signal });
    await until(async () => h.k6Runs() === 1, 10_000, "k6 to start");
    h.k6.emit({ type: "start", t: Date.now(), k6: "fake" });
    h.k6.emit(measuredSecond());
    h.k6.emit({ type: "end" });
    h.k6.finish({ summary: summaryOf(REQUESTS) });
    const after = await until(
      async () => {
        const c = await testDb().cell.findUniqueOrThrow({
          where: { id: cellId },
          include: { summary: true },
        });
        return c.status !== "running" && c;
      },
      10_000,
      "the cell to end",
    );
    expect([after.status, after.error]).toEqual(["succeeded", null]);
    expect(after.summary!.requests).toBe(BigInt(REQUESTS));
    // In its 600 s cooldown now: SIGTERM must not wait for it.
    const stopping = Date.now();
    shutdown.abort();
    await running;
    expect(Date.now() - stopping).toBeLessThan(1_000);
  });
});

describe("the seconds' writes", () => {
  it("number the seconds sampled before k6's start line from the load's start once it is known", async () => {
    const { cellId, runId } = await cell();
    let loadStartT: number | null = null;
    const sink = new PointSink(
      { db: testDb(), publisher, log, retryMs: 5_000 },
      { id: cellId, runId },
      () => loadStartT,
    );
    const aggregator = new CellAggregator({ operationMethod: "tools/call", measuredSeconds: 5 });
    const now = Math.floor(Date.now() / 1000);
    // Two seconds sampled while k6 was still starting (a slow container start, many VUs)…
    aggregator.addInterval({ ...measuredSecond(), t: now - 4 });
    aggregator.addInterval({ ...measuredSecond(), t: now - 3 });
    sink.push(aggregator.takeAllPoints());
    await new Promise((r) => setTimeout(r, 300));
    expect(await testDb().metricPoint.count({ where: { cellId } })).toBe(0);
    // …then k6 says the load began at now - 2.
    loadStartT = now - 2;
    aggregator.addInterval({ ...measuredSecond(), t: now - 2 });
    sink.push(aggregator.takeAllPoints());
    await sink.flush();
    const rows = await testDb().metricPoint.findMany({ where: { cellId }, orderBy: { t: "asc" } });
    expect(rows.map((r) => r.second)).toEqual([-2, -1, 0]);
  });

  it("give up once the database stayed away past the retry window: said once, nothing more written", async () => {
    // A real client of a database that is not there: every write is refused a connection.
    const gone = createDb(`postgresql://perflab:perflab@127.0.0.1:${await freePort()}/perflab`);
    try {
      const failures: unknown[] = [];
      const sink = new PointSink(
        { db: gone, publisher, log, retryMs: 600 },
        { id: "no-cell", runId: "no-run" },
        () => Math.floor(Date.now() / 1000),
        (error) => failures.push(error),
      );
      const aggregator = new CellAggregator({ operationMethod: "tools/call", measuredSeconds: 5 });
      aggregator.addInterval(measuredSecond());
      sink.push(aggregator.takeAllPoints());
      await until(async () => failures.length > 0, 20_000, "the sink to give up");
      expect(String((failures[0] as Error).message)).toMatch(
        /the database did not answer for \d+ s while writing seconds/,
      );
      // Later seconds are not tried again, and the failure is not reported twice.
      aggregator.addInterval({ ...measuredSecond(), t: Math.floor(Date.now() / 1000) + 1 });
      sink.push(aggregator.takeAllPoints());
      await expect(sink.flush()).rejects.toBe(failures[0]);
      expect(failures).toHaveLength(1);
    } finally {
      await gone.$disconnect();
    }
  }, 30_000);
});
