import type { TMatrixSpecInput } from "../matrix.ts";

/** A figure as a study printed it: one number, or the range it gave ("~8,000–12,000"). */
export type Figure = number | readonly [number, number];

/**
 * What a study printed for one row, in its own units: requests (or calls) per second, latencies in
 * ms, memory in MB. Only what it printed; `note` says what the numbers are when they are not what
 * the lab measures the same way (a mixed load, a time to first event).
 */
export type PublishedFigures = {
  rps?: Figure;
  avgMs?: Figure;
  sdMs?: Figure;
  p50Ms?: Figure;
  p95Ms?: Figure;
  p99Ms?: Figure;
  ramMb?: Figure;
  errors?: number;
  /** Time from opening a stream to its first event, ms: study 000's connection storm. */
  firstEventMs?: Figure;
  note?: string;
};

/**
 * Figures for one workload and load level of the study: `scenario` is the index into the study's
 * scenarios (absent: the study's load as a whole, when it mixed its tools), `vus` or `rate` the level
 * (absent: every level the study ran, when it ran one).
 */
export type PublishedCell = { scenario?: number; vus?: number; rate?: number; figures: PublishedFigures };

/** One system the study measured, as it named it, and what runs it here. */
export type StudyRow = {
  /** As the study labelled it: "nodejs", "java-vt-native", "Go (Chi)". */
  label: string;
  /** What the study ran: framework, transport and settings. */
  system: string;
  /** The lab's server for this row ("name" or "name:variant"), when it has one. */
  server?: string;
  /** How the lab's server differs from what the study ran, when it does. */
  differs?: string;
  /** Why the lab cannot run this row at all (not merely not installed on this lab). */
  unavailable?: string;
  published?: readonly PublishedCell[];
};

export type StudyLoad = Pick<
  TMatrixSpecInput,
  "loadLevels" | "durationSec" | "warmupSec" | "rounds" | "adaptive" | "driver" | "limits" | "timeoutMs"
>;

export type StudyVariant = "published" | "quick";

/**
 * A published study as the matrix that measures what it measured. `published` follows the study's
 * design where it gives one and the lab's choices where it does not (`measures` says which); `quick`
 * is the same workloads shortened to a few minutes.
 */
export type Study = {
  id: string;
  /** The study it reproduces, as its authors titled it. */
  source: string;
  title: string;
  /** What the matrix measures, in one or two sentences. */
  measures: string;
  /** Every system the study measured, in its order. */
  rows: readonly StudyRow[];
  /** The lab's own reference servers run beside the study's rows, marked as extra. */
  extras: readonly string[];
  scenarios: TMatrixSpecInput["scenarios"];
  /**
   * The published variant's workloads when they are not `scenarios` (which the quick variant runs):
   * one mix of tools in session lifecycles where the study mixed them, while the quick look
   * measures each tool in a cell of its own.
   */
  publishedScenarios?: TMatrixSpecInput["scenarios"];
  published: StudyLoad;
  quick: StudyLoad;
};

/** One row of a study as a lab with some servers would run it. */
export type StudyRowPlan = {
  label: string;
  system: string;
  server: string | null;
  /** A lab server run beside the study's rows, not one of them. */
  extra: boolean;
  differs: string | null;
  /** Why this lab does not run the row; null when it does. */
  missing: string | null;
  published: readonly PublishedCell[];
};
