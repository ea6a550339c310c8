import {
  fieldErrors,
  isScenarioId,
  MAX_MATRIX_HOURS,
  scenarioCatalog,
  type TCreatedUpload,
  type TK6OutputLine,
  type TUploadQuery,
  ZK6OutputLine,
  ZUploadQueryChecked,
} from "@perflab/contracts";
import {
  type Db,
  ensureDefaultWorkspace,
  type Prisma,
  upsertMetricPoints,
  writeCellRollups,
} from "@perflab/db";
import {
  CellAggregator,
  cellSummaryRecord,
  DEFAULT_OPERATION_METHOD,
  type SecondPoint,
} from "@perflab/metrics";
import type { Caller } from "../auth";
import { AppError } from "../errors";
import { assertBaselineExists } from "./baseline";

/** The largest k6 output an upload may carry: about a day of per-second lines with a few groups. */
export const UPLOAD_MAX_BYTES = 50 * 2 ** 20;
const INT32_MAX = 2 ** 31 - 1;
/** The longest load a matrix may ask for (7 days), which bounds a line's time after the start. */
const MAX_LOAD_SECONDS = MAX_MATRIX_HOURS * 3600;
/** The insert transaction's time allowance per point, beyond a fixed 2 minutes. */
const TX_MS_PER_POINT = 5;

export type ParsedK6Output = {
  start: Extract<TK6OutputLine, { type: "start" }>;
  /**
   * When the test run began (Unix ms): the run line's time, which follows VU initialisation; the
   * start line's for outputs of an older perflab k6 that wrote none.
   */
  testStartMs: number;
  aggregator: CellAggregator;
  /** Every second's point, in order, taken from the aggregator as the lines were read. */
  points: SecondPoint[];
  lines: number;
  /** Most VUs reported in a second with measured requests (or in any second, if none had). */
  maxVus: number;
  /** Most VUs reported in any second. */
  peakVus: number;
  lastT: number;
  /** The first and last second holding requests tagged phase=measure; null when none does. */
  measured: { firstT: number; lastT: number } | null;
  /** Iterations k6 completed in each second (its `iterations`, summed over repeated lines). */
  iterationsBySecond: Map<number, number>;
};

/** What one (phase, method, tool) group adds up to over the whole output. */
type GroupTally = {
  phase: string;
  method: string;
  tool: string;
  requests: number;
  failed: number;
  opErrors: number;
  latencies: number;
};

const invalidLine = (line: number, message: string, detail: string) =>
  new AppError("invalid", `Line ${line} of the k6 output ${detail}.`, [{ field: `line ${line}`, message }]);
const invalidBody = (message: string, detail: string) =>
  new AppError("invalid", detail, [{ field: "(body)", message }]);
/** How a refusal names a group of the output: its key, as the lines carry it. */
const groupField = (g: { phase: string; method: string; tool: string }) =>
  `group ${JSON.stringify({ phase: g.phase, method: g.method, tool: g.tool })}`;

/**
 * Refuses a group whose counts over the whole output contradict each other: more failed requests
 * or failed operations than requests, or histograms holding another number of latencies than the
 * requests (k6 records one duration per request). Over the whole output, not per second: an
 * operation's error is stamped a moment after its request, so it may fall in the next second.
 */
function checkGroupTallies(tallies: Iterable<GroupTally>): void {
  for (const g of tallies) {
    const refuse = (message: string) =>
      new AppError(
        "invalid",
        `The k6 output contradicts itself: its ${g.phase} ${g.method || "(no method)"} requests${g.tool ? ` of ${g.tool}` : ""} ${message}.`,
        [{ field: groupField(g), message }],
      );
    if (g.failed > g.requests) {
      throw refuse(`count ${g.failed} failed but only ${g.requests} requests over the whole output`);
    }
    if (g.opErrors > g.requests) {
      throw refuse(
        `count ${g.opErrors} failed operations but only ${g.requests} requests over the whole output`,
      );
    }
    if (g.latencies !== g.requests) {
      throw refuse(
        `count ${g.requests} requests but their histograms hold ${g.latencies} latencies over the whole output`,
      );
    }
  }
}

/**
 * Reads the NDJSON perflab's k6 output writes, line by line, into the same aggregator the worker
 * feeds: per-second HDR histograms are merged, never averaged. A line that is not JSON, not a
 * perflab line or out of place (start first, end last) is refused with its 1-based line number.
 */
export function parseK6Output(
  text: string,
  /**
   * The `method` tag of the scenario's operations (default MCP's tools/call), and the measured
   * window's length when known (it gives the summary its drift).
   */
  options: {
    operationMethod?: string;
    measuredSeconds?: number;
    warmupSeconds?: number;
    /** "auto" for an uploader's own script: latency of every request when none is an operation. */
    latency?: "operations" | "auto";
  } = {},
): ParsedK6Output {
  const aggregator = new CellAggregator(options);
  // Seconds are taken as the lines go by, as the worker does while k6 runs: the aggregator keeps a
  // few seconds (for late lines), not every second's histogram of a day-long output.
  const points = new Map<number, SecondPoint>();
  const keep = (taken: SecondPoint[]) => {
    for (const point of taken) points.set(point.t, point);
  };
  let start: ParsedK6Output["start"] | null = null;
  let runStartMs: number | null = null;
  let planned = false;
  // As the worker does: the window's seconds follow the plan (the run's start plus the warm-up).
  const plan = (testStartMs: number) => {
    planned = true;
    if (options.warmupSeconds !== undefined)
      aggregator.setMeasureStart(testStartMs + options.warmupSeconds * 1000);
  };
  let endLine: number | null = null;
  let lines = 0;
  let maxVus = 0;
  let maxMeasureVus = 0;
  let lastT = 0;
  let firstMeasuredT = Number.POSITIVE_INFINITY;
  let lastMeasuredT = Number.NEGATIVE_INFINITY;
  const iterationsBySecond = new Map<number, number>();
  const tallies = new Map<string, GroupTally>();
  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.trim();
    if (!raw) continue;
    const n = i + 1;
    lines++;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw invalidLine(n, "is not valid JSON", "is not valid JSON");
    }
    const parsed = ZK6OutputLine.safeParse(json);
    if (!parsed.success) {
      const message = parsed.error.issues
        .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
        .join("; ");
      throw invalidLine(n, message, "is not a line of perflab's k6 output");
    }
    const line = parsed.data;
    if (endLine !== null) {
      throw invalidLine(n, `comes after the end line (line ${endLine})`, "comes after the end line");
    }
    if (line.type === "start") {
      if (start) throw invalidLine(n, "is a second start line", "is a second start line");
      start = line;
      continue;
    }
    if (!start) {
      throw invalidLine(
        n,
        'comes before the start line ({"type":"start",...}), which must be the first line',
        "comes before the start line",
      );
    }
    if (line.type === "end") {
      endLine = n;
      continue;
    }
    if (line.type === "run") {
      if (runStartMs !== null) throw invalidLine(n, "is a second run line", "is a second run line");
      if (planned) {
        throw invalidLine(
          n,
          "comes after a second with requests; the run line precedes them",
          "comes after seconds with requests",
        );
      }
      if (line.t < start.t || line.t > start.t + 3_600_000) {
        throw invalidLine(
          n,
          "t: must be within an hour after the start line's time (k6 initialises its VUs between them)",
          "is not of the run its start line began",
        );
      }
      runStartMs = line.t;
      plan(line.t);
      continue;
    }
    // A second is stored as its offset from the start line (a 32-bit integer): a line must fall
    // within a matrix's longest load (7 days) of it, as k6's own lines do.
    const offset = line.t - Math.floor(start.t / 1000);
    if (offset < -60 || offset > MAX_LOAD_SECONDS + 3600) {
      throw invalidLine(
        n,
        `t: is ${offset} s from the start line's time; a line of one k6 run falls within ${MAX_LOAD_SECONDS} s of it`,
        "is not of the run its start line began",
      );
    }
    // An output of an older perflab k6 has no run line: the window counts from its start line.
    if (!planned && line.groups.length > 0) plan(start.t);
    let latencies: number[];
    try {
      latencies = aggregator.addInterval(line);
    } catch (error) {
      throw invalidLine(
        n,
        `has a histogram that cannot be decoded: ${(error as Error).message}`,
        "has a histogram that cannot be decoded",
      );
    }
    line.groups.forEach((g, j) => {
      const key = JSON.stringify([g.phase, g.method, g.tool]);
      let tally = tallies.get(key);
      if (!tally) {
        tally = {
          phase: g.phase,
          method: g.method,
          tool: g.tool,
          requests: 0,
          failed: 0,
          opErrors: 0,
          latencies: 0,
        };
        tallies.set(key, tally);
      }
      tally.requests += g.requests;
      tally.failed += g.failed;
      tally.opErrors += g.opErrors;
      tally.latencies += latencies[j] ?? 0;
    });
    iterationsBySecond.set(line.t, (iterationsBySecond.get(line.t) ?? 0) + line.iterations);
    lastT = Math.max(lastT, line.t);
    keep(aggregator.takeReadyPoints(lastT));
    maxVus = Math.max(maxVus, line.vus);
    if (line.groups.some((g) => g.phase === "measure" && g.requests > 0)) {
      maxMeasureVus = Math.max(maxMeasureVus, line.vus);
      firstMeasuredT = Math.min(firstMeasuredT, line.t);
      lastMeasuredT = Math.max(lastMeasuredT, line.t);
    }
  }
  if (!start) {
    throw invalidBody(
      lines === 0 ? "is empty" : 'has no start line ({"type":"start",...})',
      "The k6 output has no start line: upload the whole file k6 wrote with --out perflab=<file>.",
    );
  }
  if (endLine === null) {
    throw invalidBody(
      'has no end line ({"type":"end"})',
      "The k6 output has no end line: k6 did not finish writing it, so the measurement is incomplete.",
    );
  }
  checkGroupTallies(tallies.values());
  if (!planned) plan(runStartMs ?? start.t);
  keep(aggregator.takeAllPoints());
  // Lines of the same second add up: their sum must still fit the point's 32-bit counts.
  for (const point of points.values()) {
    const largest = Math.max(point.requests, point.errors, point.ops);
    if (largest > INT32_MAX) {
      throw invalidBody(
        `has ${largest} requests in one second (${point.t}); a second holds at most ${INT32_MAX}`,
        "The k6 output claims more requests in one second than any k6 run makes.",
      );
    }
  }
  return {
    start,
    testStartMs: runStartMs ?? start.t,
    aggregator,
    points: [...points.values()].sort((a, b) => a.t - b.t),
    lines,
    maxVus: maxMeasureVus || maxVus,
    peakVus: maxVus,
    lastT,
    measured: Number.isFinite(firstMeasuredT) ? { firstT: firstMeasuredT, lastT: lastMeasuredT } : null,
    iterationsBySecond,
  };
}

/** Seconds of leeway at each end of the window: k6 starts mid-second and its last second may be partial. */
const EDGE_SECONDS = 2;

/**
 * Refuses a `durationSec` the output contradicts, since the summary's rates divide by it. Both rules
 * hold for any genuine run of a perflab scenario script, whatever the server did:
 *
 * - Too long: k6 writes a line for every second the test runs (its VU count is sampled each second,
 *   so a stalled server's seconds have lines too), and the test starts after the start line. So the
 *   lines reach at least warmupSec + durationSec past the start line, less EDGE_SECONDS.
 * - Too short: every iteration starts within the test, whose measured part begins at or before the
 *   first second with a measured request and lasts durationSec. An iteration that ends more than
 *   EDGE_SECONDS after that was in flight when the test ended: at most one per VU (for the open
 *   model, the VUs k6 reported plus the calls it starts in the two seconds between samples). More
 *   iterations ending that late mean the measured window was longer than durationSec. Not the
 *   measured requests' span: k6 lets iterations in flight finish (for up to 30 s), so a slow
 *   server's last requests end well after the window.
 */
export function checkDuration(
  output: Pick<ParsedK6Output, "start" | "lastT" | "measured" | "iterationsBySecond" | "peakVus">,
  meta: Pick<TUploadQuery, "durationSec" | "warmupSec" | "vus" | "rate" | "maxVus">,
): void {
  const { durationSec, warmupSec } = meta;
  const covered = output.lastT + 1 - output.start.t / 1000;
  if (warmupSec + durationSec > covered + EDGE_SECONDS) {
    const upTo = Math.max(0, Math.floor(covered + EDGE_SECONDS - warmupSec));
    throw new AppError(
      "invalid",
      `durationSec is ${durationSec} s, but the k6 output's lines end ${Math.floor(covered)} s after its start line` +
        `${warmupSec > 0 ? `, warm-up (warmupSec ${warmupSec} s) included` : ""}: k6 writes a line every second it runs, ` +
        "so it measured for less time than that, and the summary's rates would be too low.",
      [
        {
          field: "durationSec",
          message: `must be at most ${upTo} s, the time the output covers after the warm-up`,
        },
      ],
    );
  }
  if (!output.measured) return;
  const lateFrom = output.measured.firstT + durationSec + EDGE_SECONDS;
  let late = 0;
  for (const [t, iterations] of output.iterationsBySecond) if (t >= lateFrom) late += iterations;
  const inFlight = Math.max(output.peakVus, meta.vus ?? 0, meta.maxVus ?? 0) + 2 * (meta.rate ?? 0);
  if (late > inFlight) {
    const span = output.measured.lastT - output.measured.firstT + 1;
    throw new AppError(
      "invalid",
      `durationSec is ${durationSec} s, but the k6 output's measured requests span ${span} s, and ${late} iterations ` +
        `ended more than ${durationSec + EDGE_SECONDS} s after the first measured second: k6 starts none after the ` +
        `measured window, and at most ${inFlight} can have been in flight at its end (one per VU). The window was ` +
        "longer than durationSec, and the summary's rates would be too high.",
      [
        {
          field: "durationSec",
          message: `is shorter than the measured window: ${late} iterations ended after it, more than the ${inFlight} in flight at its end`,
        },
      ],
    );
  }
}

/**
 * Stores a CI job's k6 output as a finished run of one cell: the run (source api), the cell, its
 * summary over the measured window and its per-second points, all in one transaction, so a
 * failure leaves nothing behind.
 */
export async function createUpload({
  db,
  query,
  body,
  origin,
  rollupMinSeconds,
  caller = null,
}: {
  db: Db;
  /** The token the request authenticated with: the run is recorded as its. */
  caller?: Caller | null;
  /** The query string's parameters, as strings. */
  query: Record<string, string>;
  /** The NDJSON body. */
  body: string;
  /** Scheme and host the run's URL is built on. */
  origin: string;
  /** Cells with more seconds than this get rollups; default ROLLUP_MIN_SECONDS. */
  rollupMinSeconds?: number;
}): Promise<TCreatedUpload> {
  const parsedQuery = ZUploadQueryChecked.safeParse(query);
  if (!parsedQuery.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsedQuery.error));
  }
  const meta: TUploadQuery = parsedQuery.data;
  // A scenario of the catalog counts its own operations (http-route: GETs); another one MCP's tool calls.
  const operationMethod = isScenarioId(meta.scenario)
    ? scenarioCatalog[meta.scenario].operationMethod
    : DEFAULT_OPERATION_METHOD;
  const output = parseK6Output(body, {
    operationMethod,
    latency: isScenarioId(meta.scenario) ? "operations" : "auto",
    measuredSeconds: meta.durationSec,
    warmupSeconds: meta.warmupSec,
  });
  const { start, aggregator } = output;
  const summary = aggregator.summary({ durationSec: meta.durationSec });
  if (summary.requests === 0) {
    throw invalidBody(
      "has no requests tagged phase=measure",
      "The k6 output has no measured requests: was it written by perflab's scenario, and did the load reach the server?",
    );
  }
  checkDuration(output, meta);
  if (meta.k6Requests !== undefined && meta.k6Requests !== summary.requests) {
    throw new AppError(
      "invalid",
      `The k6 output holds ${summary.requests} measured requests but k6 counted ${meta.k6Requests}: output was lost.`,
      [
        {
          field: "k6Requests",
          message: `does not match the ${summary.requests} measured requests in the output`,
        },
      ],
    );
  }
  const points = output.points;
  // The operations' `tool` tag: the tool called, or http-route's route template.
  const tool =
    meta.tool ?? summary.operations.find((op) => op.method === operationMethod && op.tool)?.tool ?? null;
  const loadLevel =
    meta.rate === undefined
      ? { vus: meta.vus ?? Math.max(1, output.maxVus) }
      : { rate: meta.rate, maxVus: meta.maxVus ?? Math.max(1, output.maxVus) };
  // Stored as the lab stores a matrix's parameters (the scenario's own schema: defaults filled, the
  // default session left out), so an upload and a lab run of the same call are one workload.
  const raw =
    meta.scenario === "http-route"
      ? { ...(tool ? { route: tool } : {}) }
      : {
          ...(tool ? { tool } : {}),
          ...(meta.arguments ? { arguments: meta.arguments } : {}),
          ...(meta.session ? { session: meta.session } : {}),
        };
  // Only a name of the catalog: "toString" or "__proto__" must not find an Object method.
  const parsed = isScenarioId(meta.scenario)
    ? scenarioCatalog[meta.scenario].params.safeParse(raw)
    : undefined;
  const params = (parsed?.success ? parsed.data : raw) as Record<string, unknown>;
  const git = {
    repo: meta.gitRepo,
    branch: meta.gitBranch,
    commit: meta.gitCommit,
    pr: meta.gitPr,
  };
  const name = meta.name ?? `${meta.server} · CI upload`;
  // Shaped like a matrix spec (the run page reads it as one), plus what only an upload has.
  const spec = {
    name,
    servers: [meta.server],
    scenarios: [{ id: meta.scenario, params }],
    loadLevels: [loadLevel],
    rounds: 1,
    durationSec: meta.durationSec,
    warmupSec: meta.warmupSec,
    cooldownSec: 0,
    driver: meta.driver,
    git,
    upload: { k6Version: start.k6, lines: output.lines, bytes: Buffer.byteLength(body, "utf8") },
  };
  // The lines' count covers the measured window only; the query's (k6's whole-test summary count) is
  // for outputs of an older perflab k6 whose lines have none.
  const droppedCalls = meta.rate === undefined ? null : (summary.droppedCalls ?? meta.droppedCalls ?? null);
  const measureStart = output.testStartMs + meta.warmupSec * 1000;
  const startedAt = new Date(start.t);
  const finishedAt = new Date(Math.max(start.t, (output.lastT + 1) * 1000));
  const loadStartT = Math.floor(start.t / 1000);
  if (meta.baselineRunId !== undefined) await assertBaselineExists(db, meta.baselineRunId, "baselineRunId");
  const workspace = caller ? { id: caller.workspaceId } : await ensureDefaultWorkspace(db);

  const { runId, cellId } = await db.$transaction(
    async (tx) => {
      const run = await tx.run.create({
        data: {
          workspaceId: workspace.id,
          apiTokenId: caller?.tokenId ?? null,
          source: "api",
          status: "succeeded",
          name,
          spec: spec as unknown as Prisma.InputJsonValue,
          gitRepo: meta.gitRepo ?? null,
          gitBranch: meta.gitBranch ?? null,
          gitCommit: meta.gitCommit ?? null,
          gitPr: meta.gitPr ? Number(meta.gitPr) : null,
          baselineRunId: meta.baselineRunId ?? null,
          cellsTotal: 1,
          cellsDone: 1,
          cellsFailed: 0,
          startedAt,
          finishedAt,
        },
        select: { id: true },
      });
      const cell = await tx.cell.create({
        data: {
          runId: run.id,
          index: 0,
          serverName: meta.server,
          scenario: meta.scenario,
          loadLevel,
          params: params as Prisma.InputJsonValue,
          round: 1,
          durationSeconds: meta.durationSec,
          warmupSeconds: meta.warmupSec,
          status: "succeeded",
          driver: meta.driver,
          k6Version: start.k6,
          startedAt,
          measureStartedAt: new Date(measureStart),
          measureEndedAt: new Date(measureStart + meta.durationSec * 1000),
          finishedAt,
        },
        select: { id: true },
      });
      await tx.cellSummary.create({
        data: {
          cellId: cell.id,
          ...cellSummaryRecord(summary, meta.k6Requests ?? null),
          droppedCalls: droppedCalls === null ? null : BigInt(droppedCalls),
        },
      });
      await upsertMetricPoints(tx, cell.id, points, loadStartT);
      return { runId: run.id, cellId: cell.id };
    },
    // A day of points is up to 86,400 rows, under 1 ms each on a small machine; the limit grows
    // with the rows instead of failing the longest uploads that the size limit lets in.
    { timeout: 120_000 + points.length * TX_MS_PER_POINT, maxWait: 10_000 },
  );
  // A long upload's charts read merged buckets (derived from the rows just committed; without them
  // the charts fall back to the seconds, so a failure here loses nothing).
  await writeCellRollups(
    db,
    cellId,
    rollupMinSeconds === undefined ? {} : { minSeconds: rollupMinSeconds },
  ).catch((error: Error) => {
    console.warn(`could not write the rollups of uploaded cell ${cellId}: ${error.message}`);
  });

  return { runId, url: new URL(`/runs/${encodeURIComponent(runId)}`, origin).toString() };
}
