import { z } from "zod";
import { gitPrText, gitText, numeric, text, unstorableTextIn } from "./fields.ts";
import { driverIds } from "./matrix.ts";
import { defaultScenarioId, scenarioCatalog, scenarioModules, sessionModes } from "./scenarios.ts";

/**
 * The content types an upload's NDJSON body may be sent as: its registered and common names, and,
 * each line being JSON, application/json and plain text too.
 */
export const UPLOAD_MEDIA_TYPES = [
  "application/x-ndjson",
  "application/jsonl",
  "application/json",
  "text/plain",
  "application/gzip",
  "application/x-gzip",
  "application/octet-stream",
] as const;

/**
 * What an upload's body may be, each plain or gzip: perflab's own k6 output (`--out perflab=`), and
 * the three files every k6 user has: `--summary-export` JSON, the `handleSummary(data)` object as
 * JSON, and `--out json` NDJSON (one Point per sample).
 */
export const uploadFormats = ["perflab", "k6-summary-export", "k6-handle-summary", "k6-json"] as const;
export type TUploadFormat = (typeof uploadFormats)[number];

/** k6's own figures for one metric of its summary, as k6 printed them (names as k6's: `p(95)`, `med`). */
export const ZK6SummaryMetric = z.object({
  type: z.string().nullable(),
  values: z.record(z.string(), z.number()),
});

/**
 * Where an uploaded run's figures came from and what that source cannot give (stored on its spec's
 * `upload` block, read by its page, its report and the verdict). `k6Summary` holds a summary
 * upload's metrics as k6 computed them: never merged or averaged with the lab's HDR histograms.
 */
export const ZUploadProvenance = z.object({
  format: z.enum(uploadFormats),
  compressed: z.boolean(),
  lacks: z.array(z.string()),
  k6Summary: z
    .object({
      /** The metrics the figures were read from, e.g. `http_req_duration{phase:measure,method:tools/call}`. */
      latencyMetric: z.string().nullable(),
      requestsMetric: z.string(),
      testRunDurationMs: z.number().nullable(),
      metrics: z.record(z.string(), ZK6SummaryMetric),
    })
    .optional(),
});
export type TK6SummaryMetric = z.infer<typeof ZK6SummaryMetric>;
export type TUploadProvenance = z.infer<typeof ZUploadProvenance>;

/**
 * What the `tool` query value names: the default scenario's tag ("The tool called"), then each other
 * scenario's ("the route, for scenario=http-route").
 */
function toolDescription(): string {
  const { tag } = scenarioCatalog[defaultScenarioId].operations;
  const others = scenarioModules
    .filter((m) => m.id !== defaultScenarioId)
    .map((m) => `${m.operations.tag}, for scenario=${m.id}`);
  const which = others.length > 0 ? ` (${others.join("; ")})` : "";
  return `${tag.charAt(0).toUpperCase()}${tag.slice(1)}${which}; defaults to the tool tag of the output's operations.`;
}

/** A whole number from the query string; a blank value (`warmupSec=`) is refused, not read as 0. */
const whole = () => z.number({ error: "must be a number" }).int("must be a whole number");
const seconds = (max: number, min: number) =>
  numeric(
    whole()
      .min(min, min === 0 ? "must not be negative" : `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

/**
 * Query string of `POST /api/v1/uploads`: what the uploaded k6 output was measured against. The body
 * is the NDJSON perflab's k6 output wrote (`--out perflab=<file>`); each value here arrives as a
 * string, unknown keys are ignored, and a blank value is refused by name rather than read as 0.
 */
export const ZUploadQuery = z.object({
  server: text(120).describe("The server that was measured; recorded as the cell's server name."),
  durationSec: seconds(86_400, 1).describe(
    "The measured window in seconds, as given to the scenario (DURATION); divides requests into req/s.",
  ),
  warmupSec: seconds(3_600, 0)
    .default(0)
    .describe("The warm-up before it (WARMUP); its requests are excluded by the script's phase tag."),
  name: text(120).optional().describe("Run name; defaults to `<server> · CI upload`."),
  scenario: text(64).default(defaultScenarioId).describe("The scenario the script ran."),
  tool: text(120).optional().describe(toolDescription()),
  arguments: z
    .string()
    .max(64 * 1024, "must be at most 64 KiB")
    .transform((text, ctx) => {
      try {
        const value: unknown = JSON.parse(text);
        if (value !== null && typeof value === "object" && !Array.isArray(value)) {
          // Postgres' jsonb refuses a NUL and an unpaired surrogate.
          const unstorable = unstorableTextIn(value);
          if (unstorable) {
            ctx.addIssue({ code: "custom", message: unstorable.message });
            return z.NEVER;
          }
          return value as Record<string, unknown>;
        }
      } catch {
        // Reported below.
      }
      ctx.addIssue({ code: "custom", message: "must be a JSON object" });
      return z.NEVER;
    })
    .optional()
    .describe(
      "The tool's arguments as JSON (ARGS), so the upload is the same workload as a lab run of that call (and a verdict matches them).",
    ),
  session: z
    .enum(sessionModes, { error: `must be ${sessionModes.map((m) => `"${m}"`).join(" or ")}` })
    .optional()
    .describe("How the script used MCP sessions (SESSION): one per VU (default) or a new one per call."),
  vus: numeric(whole().min(1, "must be at least 1").max(100_000, "must be at most 100000"))
    .optional()
    .describe(
      "Closed model: virtual users; defaults to the most VUs the output reports during measurement. Leave out with `rate`.",
    ),
  rate: numeric(whole().min(1, "must be at least 1 call per second").max(100_000, "must be at most 100000"))
    .optional()
    .describe(
      "Open model: the tool calls per second the script started (RATE); the cell is then an open-model level.",
    ),
  maxVus: numeric(whole().min(1, "must be at least 1").max(100_000, "must be at most 100000"))
    .optional()
    .describe("Open model: the script's VU pool (MAX_VUS); defaults to the most VUs the output reports."),
  droppedCalls: numeric(whole().min(0, "must not be negative"))
    .optional()
    .describe(
      "Open model: k6's `dropped_iterations` count from its summary (whole test), the calls it could not start for want of a free VU. Used only for an output whose lines carry no per-second `dropped` count (an older perflab k6); otherwise the lines' count over the measured window is stored.",
    ),
  driver: z
    .enum(driverIds, { error: `must be one of ${driverIds.join(", ")}` })
    .default("local")
    .describe("How the CI job ran the server: a plain process (local) or a container (docker)."),
  k6Requests: numeric(whole().min(0, "must not be negative"))
    .optional()
    .describe(
      "k6's own count of measured requests (`http_reqs{phase:measure}` in its summary); when given, an upload whose output disagrees is refused.",
    ),
  format: z
    .enum(uploadFormats, { error: `must be one of ${uploadFormats.join(", ")}` })
    .optional()
    .describe(
      "What the body is, when detection from its content should not decide: perflab's own output, k6's `--summary-export` JSON, a `handleSummary` data object, or `--out json` NDJSON (each plain or gzip). A body that is not that format fails the run naming `format`.",
    ),
  baselineRunId: text(64)
    .optional()
    .describe("A run to judge this upload against: its verdict is GET /api/v1/runs/{id}/verdict."),
  gitRepo: gitText.repo().optional(),
  gitBranch: gitText.branch().optional(),
  gitCommit: gitText.commit().optional(),
  gitPr: gitPrText().optional().describe("Pull request number."),
});

/** The upload query with the checks across its fields (one load model, its own fields only). */
export const ZUploadQueryChecked = ZUploadQuery.superRefine((query, ctx) => {
  if (query.rate !== undefined && query.vus !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["vus"],
      message: "give vus (closed model) or rate (open model), not both",
    });
  }
  for (const key of ["maxVus", "droppedCalls"] as const) {
    if (query[key] !== undefined && query.rate === undefined) {
      ctx.addIssue({ code: "custom", path: [key], message: "only an open-model upload (rate) has it" });
    }
  }
});
export type TUploadQuery = z.output<typeof ZUploadQuery>;

/** 201 of `POST /api/v1/uploads`. */
export const ZCreatedUpload = z.object({
  runId: z.string(),
  url: z.string().describe("Absolute URL of the run page."),
});
export type TCreatedUpload = z.infer<typeof ZCreatedUpload>;
