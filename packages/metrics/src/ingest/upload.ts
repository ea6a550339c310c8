import {
  isScenarioId,
  scenarioCatalog,
  uploadParams as scenarioUploadParams,
  type TUploadFormat,
  type TUploadProvenance,
  type TUploadQuery,
} from "@perflab/contracts";
import { type CellSummaryData, DEFAULT_OPERATION_METHOD } from "../cell-aggregator.ts";
import type { K6OutputOptions, ParsedK6Output } from "./decoder.ts";
import { checkDuration } from "./duration.ts";
import { IngestError, invalidBody } from "./errors.ts";

/** How an upload's output is decoded: a scenario of the catalog counts its own operations (http-route: GETs), another one MCP's tool calls. */
export function uploadDecoderOptions(
  meta: TUploadQuery,
  format: TUploadFormat = "perflab",
): K6OutputOptions & { operationMethod: string } {
  const known = isScenarioId(meta.scenario) ? scenarioCatalog[meta.scenario] : null;
  return {
    operationMethod: known ? known.operationMethod : DEFAULT_OPERATION_METHOD,
    // A k6 user's own script need not tag operations: then every request's latency.
    latency: known && format === "perflab" ? "operations" : "auto",
    measuredSeconds: meta.durationSec,
    warmupSeconds: meta.warmupSec,
  };
}

/** What an uploaded output and its metadata become: the run's and the cell's fields and the summary. */
export type UploadRecord = ReturnType<typeof uploadRecord>;

/**
 * Checks a decoded output against its metadata (measured requests, durationSec, k6's own count) and
 * shapes what is stored: a run of one cell, its spec shaped like a matrix spec (the run page reads it
 * as one) plus what only an upload has.
 */
export function uploadRecord(
  meta: TUploadQuery,
  output: ParsedK6Output,
  bytes: number,
  /** Where the figures came from and what they lack (decodeUploadBody gives it for every upload). */
  provenance?: TUploadProvenance,
) {
  const { operationMethod } = uploadDecoderOptions(meta);
  const summary = checkedSummary(meta, output);
  // The operations' `tool` tag: the tool called, or http-route's route template.
  const tool =
    meta.tool ?? summary.operations.find((op) => op.method === operationMethod && op.tool)?.tool ?? null;
  const loadLevel =
    meta.rate === undefined
      ? { vus: meta.vus ?? Math.max(1, output.maxVus) }
      : { rate: meta.rate, maxVus: meta.maxVus ?? Math.max(1, output.maxVus) };
  const params = storedUploadParams(meta, tool);
  const name = meta.name ?? `${meta.server} · CI upload`;
  const { start } = output;
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
    git: { repo: meta.gitRepo, branch: meta.gitBranch, commit: meta.gitCommit, pr: meta.gitPr },
    upload: {
      k6Version: start.k6,
      lines: output.lines as number | null,
      bytes,
      ...(provenance as Partial<TUploadProvenance>),
    },
  };
  // The lines' count covers the measured window only; the query's (k6's whole-test summary count) is
  // for outputs of an older perflab k6 whose lines have none.
  const droppedCalls = meta.rate === undefined ? null : (summary.droppedCalls ?? meta.droppedCalls ?? null);
  const measureStartMs = output.testStartMs + meta.warmupSec * 1000;
  return {
    name,
    spec,
    summary,
    loadLevel,
    params,
    droppedCalls,
    /** k6's own count of the measured requests, when the query gave it (checked equal to the summary's). */
    k6Requests: meta.k6Requests ?? null,
    /** Every second's point, in order. */
    points: output.points,
    k6Version: start.k6,
    startedAt: new Date(start.t),
    finishedAt: new Date(Math.max(start.t, (output.lastT + 1) * 1000)),
    measureStartedAt: new Date(measureStartMs),
    measureEndedAt: new Date(measureStartMs + meta.durationSec * 1000),
    /** The second the points' offsets count from. */
    loadStartT: Math.floor(start.t / 1000),
  };
}

/**
 * The spec an upload's run shows while its output waits for a worker: what the query says (the load
 * only when given), replaced by uploadRecord's once the output is read.
 */
export function pendingUploadSpec(meta: TUploadQuery, bytes: number | null = null) {
  const loadLevels =
    meta.rate !== undefined
      ? meta.maxVus !== undefined
        ? [{ rate: meta.rate, maxVus: meta.maxVus }]
        : []
      : meta.vus !== undefined
        ? [{ vus: meta.vus }]
        : [];
  return {
    name: meta.name ?? `${meta.server} · CI upload`,
    servers: [meta.server],
    scenarios: [{ id: meta.scenario, params: storedUploadParams(meta, meta.tool ?? null) }],
    loadLevels,
    rounds: 1,
    durationSec: meta.durationSec,
    warmupSec: meta.warmupSec,
    cooldownSec: 0,
    driver: meta.driver,
    git: { repo: meta.gitRepo, branch: meta.gitBranch, commit: meta.gitCommit, pr: meta.gitPr },
    upload: { bytes },
  };
}

function checkedSummary(meta: TUploadQuery, output: ParsedK6Output): CellSummaryData {
  const summary = output.aggregator.summary({ durationSec: meta.durationSec });
  if (summary.requests === 0) {
    throw invalidBody(
      "has no requests tagged phase=measure",
      "The k6 output has no measured requests: was it written by perflab's scenario, and did the load reach the server?",
    );
  }
  checkDuration(output, meta);
  if (meta.k6Requests !== undefined && meta.k6Requests !== summary.requests) {
    throw new IngestError(
      `The k6 output holds ${summary.requests} measured requests but k6 counted ${meta.k6Requests}: output was lost.`,
      "k6Requests",
      `does not match the ${summary.requests} measured requests in the output`,
    );
  }
  return summary;
}

/**
 * Stored as the lab stores a matrix's parameters (the scenario's own schema: defaults filled, the
 * default session left out), so an upload and a lab run of the same call are one workload.
 */
export function storedUploadParams(meta: TUploadQuery, tool: string | null): Record<string, unknown> {
  const raw = scenarioUploadParams(meta.scenario, { tool, arguments: meta.arguments, session: meta.session });
  // Only a name of the catalog: "toString" or "__proto__" must not find an Object method.
  const parsed = isScenarioId(meta.scenario)
    ? scenarioCatalog[meta.scenario].params.safeParse(raw)
    : undefined;
  return (parsed?.success ? parsed.data : raw) as Record<string, unknown>;
}
