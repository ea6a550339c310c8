import type { TK6SummaryMetric, TUploadFormat } from "@perflab/contracts";
import { IngestError, invalidBody } from "./errors.ts";

/** A summary is one JSON document read whole: k6 writes a few KiB; anything this large is not one. */
export const K6_SUMMARY_MAX_BYTES = 32 * 2 ** 20;
const MAX_METRICS = 10_000;

export type K6SummaryFormat = Extract<TUploadFormat, "k6-summary-export" | "k6-handle-summary">;

/** A k6 end-of-test summary, either shape, as one: each metric's figures under k6's own names. */
export type K6Summary = {
  format: K6SummaryFormat;
  metrics: Record<string, TK6SummaryMetric>;
  /** handleSummary's `state.testRunDurationMs`; summary-export has none. */
  testRunDurationMs: number | null;
};

/**
 * Reads `k6 run --summary-export` JSON (metrics.<name>.{avg, "p(95)", count, rate, …}) or the
 * `handleSummary(data)` object (metrics.<name>.{type, contains, values: {…}}) into one shape.
 * Thresholds and other non-numbers are left out; a figure that is not a finite number from 0 up
 * (JSON's 1e400 reads as Infinity) is refused naming it.
 */
export function parseK6Summary(text: string): K6Summary {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalidBody(
      `is not valid JSON: ${(error as Error).message}`,
      "The k6 summary is not valid JSON: upload the whole file k6 wrote.",
    );
  }
  const metrics = isObject(json) ? json.metrics : undefined;
  if (!isObject(metrics)) {
    throw new IngestError(
      "The body is not a k6 summary: it has no metrics object.",
      "metrics",
      "must be an object of k6's metrics",
    );
  }
  const entries = Object.entries(metrics);
  if (entries.length > MAX_METRICS) {
    throw new IngestError(
      "The k6 summary has too many metrics.",
      "metrics",
      `must have at most ${MAX_METRICS}`,
    );
  }
  const handle = entries.some(([, m]) => isObject(m) && isObject(m.values));
  const read: Record<string, TK6SummaryMetric> = {};
  for (const [name, metric] of entries) {
    if (!isObject(metric)) throw figureError(name, "", "must be an object");
    const values = handle ? metric.values : metric;
    if (!isObject(values)) throw figureError(name, "values", "must be an object");
    read[name] = {
      type: typeof metric.type === "string" ? metric.type : null,
      values: figures(name, values, handle),
    };
  }
  const state = isObject(json) ? json.state : undefined;
  const duration = isObject(state) ? state.testRunDurationMs : undefined;
  return {
    format: handle ? "k6-handle-summary" : "k6-summary-export",
    metrics: read,
    testRunDurationMs:
      typeof duration === "number" && Number.isFinite(duration) && duration > 0 ? duration : null,
  };
}

function figures(name: string, values: Record<string, unknown>, handle: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== "number") continue;
    if (!Number.isFinite(value) || value < 0 || value > Number.MAX_SAFE_INTEGER) {
      throw figureError(name, handle ? `values.${key}` : key, "must be a finite number from 0 to 2^53");
    }
    out[key] = value;
  }
  return out;
}

const figureError = (metric: string, key: string, reason: string) =>
  new IngestError(
    `The k6 summary's ${metric} metric cannot be read.`,
    `metrics.${metric}${key ? `.${key}` : ""}`,
    reason,
  );

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
