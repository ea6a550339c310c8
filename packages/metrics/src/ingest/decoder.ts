import { MAX_MATRIX_HOURS, type TK6OutputLine, ZK6OutputLine } from "@perflab/contracts";
import { CellAggregator, type SecondPoint } from "../cell-aggregator.ts";
import { invalidBody, invalidLine } from "./errors.ts";
import { checkGroupTallies, type GroupTally, tallyGroups } from "./tallies.ts";

const INT32_MAX = 2 ** 31 - 1;
/** The longest load a matrix may ask for (7 days), which bounds a line's time after the start. */
const MAX_LOAD_SECONDS = MAX_MATRIX_HOURS * 3600;

type StartLine = Extract<TK6OutputLine, { type: "start" }>;
type IntervalLine = Extract<TK6OutputLine, { type: "interval" }>;

export type ParsedK6Output = {
  start: StartLine;
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

export type K6OutputOptions = {
  /** The `method` tag of the scenario's operations (default MCP's tools/call). */
  operationMethod?: string;
  /** The measured window's length when known (it gives the summary its drift). */
  measuredSeconds?: number;
  warmupSeconds?: number;
  /** "auto" for an uploader's own script: latency of every request when none is an operation. */
  latency?: "operations" | "auto";
  /**
   * Where each batch of finished seconds goes instead of being kept for `end()`: the worker writes
   * them while k6 runs. A second re-emitted (a late line) replaces the earlier one.
   */
  onSeconds?: (points: SecondPoint[]) => void;
};

/**
 * Reads the NDJSON perflab's k6 output writes, one line per `feed` as the lines arrive, into the same
 * aggregator the worker feeds while k6 runs: per-second HDR histograms are merged, never averaged.
 * A line that is not JSON, not a perflab line or out of place (start first, end last) is refused
 * with its 1-based line number (blank lines count); `end()` checks the whole and returns it.
 */
export class K6OutputDecoder {
  readonly aggregator: CellAggregator;
  // Seconds are taken as the lines go by: the aggregator keeps a few seconds (for late lines), not
  // every second's histogram of a day-long output.
  private readonly points = new Map<number, SecondPoint>();
  private readonly tallies = new Map<string, GroupTally>();
  private readonly iterationsBySecond = new Map<number, number>();
  private start: StartLine | null = null;
  private runStartMs: number | null = null;
  private planned = false;
  private plannedStartMs: number | null = null;
  private endLine: number | null = null;
  private lineNumber = 0;
  private lines = 0;
  private maxVus = 0;
  private maxMeasureVus = 0;
  private lastT = 0;
  private firstMeasuredT = Number.POSITIVE_INFINITY;
  private lastMeasuredT = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: K6OutputOptions = {}) {
    this.aggregator = new CellAggregator(options);
  }

  /** One line of the output, without its newline. */
  feed(text: string): void {
    const n = ++this.lineNumber;
    const raw = text.trim();
    if (!raw) return;
    this.lines++;
    this.accept(n, parseLine(n, raw));
  }

  /**
   * One line already parsed, numbered `n` in refusals: how another format's decoder (k6's
   * `--out json`) hands over the seconds it built, so both go through the same checks.
   */
  accept(n: number, line: TK6OutputLine): void {
    if (this.endLine !== null) {
      throw invalidLine(n, `comes after the end line (line ${this.endLine})`, "comes after the end line");
    }
    if (line.type === "start") {
      if (this.start) throw invalidLine(n, "is a second start line", "is a second start line");
      this.start = line;
      return;
    }
    if (!this.start) {
      throw invalidLine(
        n,
        'comes before the start line ({"type":"start",...}), which must be the first line',
        "comes before the start line",
      );
    }
    if (line.type === "end") this.endLine = n;
    else if (line.type === "run") this.addRun(n, line.t, this.start);
    else this.addInterval(n, line, this.start);
  }

  /** The whole output, once its last line was fed: refused if incomplete or self-contradictory. */
  end(): ParsedK6Output {
    const start = this.start;
    if (!start) {
      throw invalidBody(
        this.lines === 0 ? "is empty" : 'has no start line ({"type":"start",...})',
        "The k6 output has no start line: upload the whole file k6 wrote with --out perflab=<file>.",
      );
    }
    if (this.endLine === null) {
      throw invalidBody(
        'has no end line ({"type":"end"})',
        "The k6 output has no end line: k6 did not finish writing it, so the measurement is incomplete.",
      );
    }
    checkGroupTallies(this.tallies.values());
    this.planUnplanned();
    this.takeAll();
    checkSecondCounts(this.points.values());
    return {
      start,
      testStartMs: this.runStartMs ?? start.t,
      aggregator: this.aggregator,
      points: [...this.points.values()].sort((a, b) => a.t - b.t),
      lines: this.lines,
      maxVus: this.maxMeasureVus || this.maxVus,
      peakVus: this.maxVus,
      lastT: this.lastT,
      measured: Number.isFinite(this.firstMeasuredT)
        ? { firstT: this.firstMeasuredT, lastT: this.lastMeasuredT }
        : null,
      iterationsBySecond: this.iterationsBySecond,
    };
  }

  /**
   * When the test run began (Unix ms) once the measured window is planned from it (a run line, or
   * a second with requests before any), else null.
   */
  get testStartMs(): number | null {
    return this.plannedStartMs;
  }

  /** Hands over the seconds that ended at least 2 s before `nowT` (Unix s): k6 is past them. */
  takeReady(nowT: number): void {
    this.keep(this.aggregator.takeReadyPoints(nowT));
  }

  /** Hands over every second still held: the output has ended. */
  takeAll(): void {
    this.keep(this.aggregator.takeAllPoints());
  }

  /**
   * The output ended before a run line or a second with requests planned the window (k6 failed in
   * its init): it counts from the start line. The test's start (Unix ms), null with no start line.
   */
  planUnplanned(): number | null {
    if (!this.planned && this.start) this.plan(this.runStartMs ?? this.start.t);
    return this.plannedStartMs;
  }

  private keep(taken: SecondPoint[]): void {
    if (taken.length === 0) return;
    if (this.options.onSeconds) {
      checkSecondCounts(taken);
      this.options.onSeconds(taken);
      return;
    }
    for (const point of taken) this.points.set(point.t, point);
  }

  /** As the worker does: the window's seconds follow the plan (the run's start plus the warm-up). */
  private plan(testStartMs: number): void {
    this.planned = true;
    this.plannedStartMs = testStartMs;
    if (this.options.warmupSeconds !== undefined)
      this.aggregator.setMeasureStart(testStartMs + this.options.warmupSeconds * 1000);
  }

  private addRun(n: number, t: number, start: StartLine): void {
    if (this.runStartMs !== null) throw invalidLine(n, "is a second run line", "is a second run line");
    if (this.planned) {
      throw invalidLine(
        n,
        "comes after a second with requests; the run line precedes them",
        "comes after seconds with requests",
      );
    }
    if (t < start.t || t > start.t + 3_600_000) {
      throw invalidLine(
        n,
        "t: must be within an hour after the start line's time (k6 initialises its VUs between them)",
        "is not of the run its start line began",
      );
    }
    this.runStartMs = t;
    this.plan(t);
  }

  private addInterval(n: number, line: IntervalLine, start: StartLine): void {
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
    if (!this.planned && line.groups.length > 0) this.plan(start.t);
    let latencies: number[];
    try {
      latencies = this.aggregator.addInterval(line);
    } catch (error) {
      throw invalidLine(
        n,
        `has a histogram that cannot be decoded: ${(error as Error).message}`,
        "has a histogram that cannot be decoded",
      );
    }
    tallyGroups(this.tallies, line.groups, latencies);
    // Only `end()` reads them: a decoder handing its seconds over (a week-long soak) keeps none.
    if (!this.options.onSeconds)
      this.iterationsBySecond.set(line.t, (this.iterationsBySecond.get(line.t) ?? 0) + line.iterations);
    this.lastT = Math.max(this.lastT, line.t);
    this.takeReady(this.lastT);
    this.maxVus = Math.max(this.maxVus, line.vus);
    if (line.groups.some((g) => g.phase === "measure" && g.requests > 0)) {
      this.maxMeasureVus = Math.max(this.maxMeasureVus, line.vus);
      this.firstMeasuredT = Math.min(this.firstMeasuredT, line.t);
      this.lastMeasuredT = Math.max(this.lastMeasuredT, line.t);
    }
  }
}

/** One line of text read as perflab's k6 output: the line, or why it is none (not JSON, another shape). */
export type K6LineRead = { line: TK6OutputLine } | { notJson: Error } | { notPerflab: string };

/** JSON, then one of perflab's k6 output lines: for uploads and the worker's live read alike. */
export function readK6Line(raw: string): K6LineRead {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { notJson: error as Error };
  }
  const parsed = ZK6OutputLine.safeParse(json);
  if (parsed.success) return { line: parsed.data };
  const message = parsed.error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
  return { notPerflab: message };
}

/** A line as JSON and then as one of perflab's k6 output lines, refused with its number. */
function parseLine(n: number, raw: string): TK6OutputLine {
  const read = readK6Line(raw);
  if ("notJson" in read) throw invalidLine(n, "is not valid JSON", "is not valid JSON");
  if ("notPerflab" in read) throw invalidLine(n, read.notPerflab, "is not a line of perflab's k6 output");
  return read.line;
}

/** Lines of the same second add up: their sum must still fit the point's 32-bit counts. */
function checkSecondCounts(points: Iterable<SecondPoint>): void {
  for (const point of points) {
    const largest = Math.max(point.requests, point.errors, point.ops);
    if (largest > INT32_MAX) {
      throw invalidBody(
        `has ${largest} requests in one second (${point.t}); a second holds at most ${INT32_MAX}`,
        "The k6 output claims more requests in one second than any k6 run makes.",
      );
    }
  }
}

/** The whole output at once (tests, benchmarks): each line fed in turn, then the end. */
export function parseK6Output(text: string, options: K6OutputOptions = {}): ParsedK6Output {
  const decoder = new K6OutputDecoder(options);
  for (const line of text.split("\n")) decoder.feed(line);
  return decoder.end();
}
