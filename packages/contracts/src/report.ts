import { z } from "zod";

/**
 * Who may open a report. Until perflab has sign-in nobody can be told apart, so a "private" report
 * could not be kept private: the API refuses it rather than serve it to anyone holding the link.
 */
export const reportVisibilities = ["unlisted", "public"] as const;

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
      .enum(reportVisibilities, {
        error: (issue) =>
          issue.input === "private"
            ? "private reports need sign-in, which perflab does not have yet; use unlisted"
            : `must be one of ${reportVisibilities.join(", ")}`,
      })
      .default("unlisted"),
  },
  { error: "must be a JSON object" },
);

export type TCreateReportInput = z.input<typeof ZCreateReport>;
export type TCreateReport = z.output<typeof ZCreateReport>;

/** A report's slug: base64url of at least 128 random bits. Anything else is never a report. */
export const REPORT_SLUG = /^[A-Za-z0-9_-]{22,64}$/;
