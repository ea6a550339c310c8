import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { DriverId, TK6OutputLine } from "@perflab/contracts";
import { readK6Line } from "@perflab/metrics";
import type { ServerResources } from "../drivers/types.ts";

export type K6RunnerKind = DriverId;

export type K6Result = {
  exitCode: number | null;
  signal: string | null;
  logTail: string;
  /** The JSON k6's handleSummary wrote (the scenario writes it to SUMMARY_PATH), or null. */
  summary: unknown;
};

export type K6Input = {
  /** Path of the scenario script on the worker's machine. */
  script: string;
  /** The cell's scratch directory on the worker's machine. */
  workDir: string;
  env: Record<string, string>;
  /**
   * Files the script opens in its init context, by the variable that names them: content too large
   * for the environment (Linux caps one variable at 128 KiB). The runner writes each beside the
   * cell's other files and sets the variable to its path.
   */
  files?: Record<string, string>;
  timeoutMs: number;
  cell: { id: string; runId: string; owner: string };
};

/** The name a runner gives the file of a variable: ARGS_FILE → k6-args-file.json. */
export const k6FileName = (variable: string) => `k6-${variable.toLowerCase().replaceAll("_", "-")}.json`;

export type K6Run = {
  /** Parsed lines of perflab's k6 output, in the order k6 wrote them. */
  lines: AsyncIterable<TK6OutputLine>;
  done: Promise<K6Result>;
  /** Graceful stop (k6 ends the test and still writes its summary); `force`: SIGKILL. */
  kill: (force?: boolean) => void;
  /** k6's own cumulative CPU seconds and memory, for the saturation check. */
  resources: () => Promise<ServerResources | null>;
  /** Output lines read so far that were not JSON (one cut off when k6 was killed mid-write): skipped. */
  skippedLines: () => { count: number; samples: string[] };
};

/** Where k6 runs: the pinned binary as a local process, or the same build in its own container. */
export type K6Runner = {
  readonly kind: K6RunnerKind;
  /** The binary's path or the image's tag. */
  readonly location: string;
  version(): Promise<string>;
  run(input: K6Input): Promise<K6Run>;
};

/** Output lines that were not JSON, kept (shortened, the first few) for the cell's log. */
export function skippedLineLog() {
  const log = {
    count: 0,
    samples: [] as string[],
    add: (raw: string, error: Error) => {
      log.count++;
      if (log.samples.length < 3) log.samples.push(`${raw.slice(0, 120)} (${error.message})`);
    },
  };
  return log;
}

/**
 * perflab's output lines. On a stream shared with other output (k6's stdout in a container), lines
 * that are not perflab's JSON (the summary's short text) go to `other`; on the pipe, they are errors.
 * A line that is not JSON at all (k6 killed mid-write cuts its last line) goes to `onUnparsable` and
 * is skipped: the cell's reason is then k6's exit, not the parse error, and the ingest's count check
 * still catches a measurement that lost data.
 */
export async function* parseLines(
  stream: Readable,
  handlers: { other?: (line: string) => void; onUnparsable?: (raw: string, error: Error) => void } = {},
): AsyncIterable<TK6OutputLine> {
  const { other, onUnparsable } = handlers;
  const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const raw of rl) {
      if (!raw.trim()) continue;
      if (other && !raw.startsWith("{")) {
        other(raw);
        continue;
      }
      // Read as uploads are (the shared decoder's reading): one place says what a line is.
      const read = readK6Line(raw);
      if ("notJson" in read) {
        onUnparsable?.(raw, read.notJson);
        continue;
      }
      if ("notPerflab" in read) throw new Error(`unexpected k6 output line: ${raw.slice(0, 200)}`);
      yield read.line;
    }
  } finally {
    // A reader that stops early closes its end: a local k6 then gets EPIPE instead of blocking.
    rl.close();
    stream.destroy();
  }
}
