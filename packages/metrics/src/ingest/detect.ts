import type { TUploadFormat } from "@perflab/contracts";
import { IngestError } from "./errors.ts";

const PERFLAB_TYPES = new Set(["start", "run", "interval", "end"]);
const K6_JSON_TYPES = new Set(["Metric", "Point"]);

/** What the first line says the body is: NDJSON by its lines' `type`, else one JSON document (a summary). */
export type Detected = TUploadFormat | "k6-summary";

/**
 * The format of an upload from its first non-blank line, as a k6 user's file would start:
 * perflab's own output with `{"type":"start",…}`, k6's `--out json` with a Metric or Point line, a
 * summary with `{` alone (summary-export is indented) or a whole object
 * holding `metrics`. Anything else goes to perflab's decoder, which names the line.
 */
export function detectFormat(firstLine: string): Detected {
  const raw = firstLine.trim();
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // An indented document (summary-export, a pretty handleSummary) opens with `{` alone.
    return raw === "{" ? "k6-summary" : "perflab";
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "perflab";
  const type = (json as { type?: unknown }).type;
  if (typeof type === "string" && K6_JSON_TYPES.has(type)) return "k6-json";
  if (typeof type === "string" && PERFLAB_TYPES.has(type)) return "perflab";
  return "metrics" in json ? "k6-summary" : "perflab";
}

const FORMAT_NAMES: Record<Detected, string> = {
  perflab: "perflab's own k6 output (--out perflab)",
  "k6-json": "k6's --out json NDJSON",
  "k6-summary": "a k6 summary",
  "k6-summary-export": "a k6 --summary-export file",
  "k6-handle-summary": "a k6 handleSummary data object",
};

/** Refuses a body whose content is not the `format` the query gave. */
export function checkDeclaredFormat(declared: TUploadFormat | undefined, found: Detected): void {
  if (declared === undefined || declared === found) return;
  if (found === "k6-summary" && (declared === "k6-summary-export" || declared === "k6-handle-summary"))
    return;
  throw new IngestError(
    `The query says the body is ${FORMAT_NAMES[declared]}, but it reads as ${FORMAT_NAMES[found]}.`,
    "format",
    `is ${declared}, but the body is ${found}`,
  );
}
