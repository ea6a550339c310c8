import { z } from "zod";
import { ZCellDto, ZRunDto } from "./api.ts";
import { numeric } from "./fields.ts";
import { ZPoint } from "./points.ts";

/**
 * Who may open a report: public and unlisted ones, anyone with the link; a private one, only a caller
 * holding an API token of the report's workspace. Creating a private report therefore needs a token
 * too (the server checks, as it knows who is asking). Lists (`GET /api/v1/reports`, the Reports page)
 * show public reports to anyone, unlisted ones to the lab's members (a token of the workspace, or
 * anyone in an open lab, where everyone may queue and share) and private ones to token holders.
 */
export const reportVisibilities = ["private", "unlisted", "public"] as const;

/**
 * `POST /api/v1/reports`: freeze a finished run behind an unguessable permalink. Strict, as every
 * request body is: a misspelt key (`visiblity`) is refused by name rather than silently dropped,
 * which would freeze the run with the default visibility.
 */
export const ZCreateReport = z.strictObject(
  {
    runId: z.string({ error: "must be a run id" }).trim().min(1, "must be a run id").max(64),
    title: z
      .string({ error: "must be a string" })
      .trim()
      .max(200, "must be at most 200 characters")
      .optional(),
    description: z
      .string({ error: "must be a string" })
      .trim()
      .max(5_000, "must be at most 5000 characters")
      .optional(),
    visibility: z
      .enum(reportVisibilities, { error: `must be one of ${reportVisibilities.join(", ")}` })
      .default("unlisted"),
  },
  { error: "must be a JSON object" },
);

export type TCreateReportInput = z.input<typeof ZCreateReport>;
export type TCreateReport = z.output<typeof ZCreateReport>;

/** A report's slug: base64url of at least 128 random bits. Anything else is never a report. */
export const REPORT_SLUG = /^[A-Za-z0-9_-]{22,64}$/;

/** Query string of GET /api/v1/reports; each value arrives as a string, unknown keys are ignored. */
export const ZReportListQuery = z.object({
  runId: z
    .string()
    .trim()
    .min(1, "must be a run id")
    .max(64, "must be a run id")
    .optional()
    .describe("Only the reports frozen from this run."),
  limit: numeric(
    z
      .number({ error: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(200, "must be at most 200"),
  )
    .default(50)
    .describe("Reports to list, newest first, 1–200."),
});
export type TReportListQuery = z.output<typeof ZReportListQuery>;

/** One report in a list: what it is and where it lives, not its snapshot. */
export const ZReportListItem = z.object({
  slug: z.string(),
  url: z.string().describe("Absolute URL of the report page."),
  title: z.string(),
  description: z.string().nullable(),
  visibility: z.enum(reportVisibilities),
  runId: z.string().describe("The run it was frozen from (which may since have changed or gone)."),
  runName: z.string().nullable().describe("That run's name now; null once the run is gone."),
  cells: z.number().int().describe("Cells frozen in the report."),
  createdAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }).nullable(),
});
export const ZReportList = z.object({ reports: z.array(ZReportListItem) });
export type TReportListItem = z.infer<typeof ZReportListItem>;
export type TReportList = z.infer<typeof ZReportList>;

/** A report keeps at most this many seconds of each cell: it is a document, not the lab's record. */
export const REPORT_POINTS_PER_CELL = 600;

const isoDate = z.iso.datetime({ offset: true });

/** A cell as frozen in a report: its DTO plus the server build it ran (language, SDK, image…). */
export const ZReportCell = ZCellDto.extend({ serverBuild: z.unknown() });

/** Everything a report page renders, copied from the run when the report was created. */
export const ZReportSnapshot = z.object({
  version: z.literal(1),
  run: ZRunDto,
  cells: z.array(ZReportCell),
  points: z
    .record(z.string(), z.array(ZPoint))
    .optional()
    .describe(
      `Each cell's seconds by cell id, oldest first, cut to at most ${REPORT_POINTS_PER_CELL}. ` +
        "Absent in reports frozen before the series were kept.",
    ),
});

/** GET /api/v1/reports/{slug}: a report with its frozen snapshot. */
export const ZReport = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  visibility: z.enum(reportVisibilities),
  runId: z.string(),
  createdAt: isoDate,
  expiresAt: isoDate.nullable(),
  snapshot: ZReportSnapshot,
});

/** 200 or 201 of POST /api/v1/reports: where the report lives. */
export const ZCreatedReport = z.object({
  slug: z.string(),
  url: z.string().describe("Absolute URL of the report page."),
});

export type TReportCell = z.infer<typeof ZReportCell>;
export type TReportSnapshot = z.infer<typeof ZReportSnapshot>;
export type TReport = z.infer<typeof ZReport>;
export type TCreatedReport = z.infer<typeof ZCreatedReport>;
