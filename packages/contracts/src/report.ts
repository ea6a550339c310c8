import { z } from "zod";

/**
 * Who may open a report: public and unlisted ones, anyone with the link (unlisted ones are kept out
 * of lists); a private one, only a caller holding an API token of the report's workspace. Creating a
 * private report therefore needs a token too (the server checks, as it knows who is asking).
 */
export const reportVisibilities = ["private", "unlisted", "public"] as const;

/** `POST /api/v1/reports`: freeze a finished run behind an unguessable permalink. */
export const ZCreateReport = z.object(
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
