import { z } from "zod";
import { ZMatrixSpecInput, ZRoundsDecision } from "../matrix.ts";
import { ZRunStatus } from "../statuses.ts";

export const ZRunSource = z.enum(["ui", "api"]);

/** Timestamps as the API sends them: ISO 8601 with an offset. */
export const isoDate = z.iso.datetime({ offset: true });

/**
 * The API token a run was queued or uploaded with: who, in a lab with several CI jobs and people.
 * Its id and name only: runs are read by anyone who reaches the lab, while the secret's first
 * characters stay on the token list, which only admins read.
 */
export const ZRunToken = z.object({ id: z.string(), name: z.string() });

export const ZRunDto = z.object({
  id: z.string(),
  name: z.string(),
  source: ZRunSource,
  status: ZRunStatus,
  /**
   * The validated matrix, frozen at submission. Stored specs may carry more (an uploaded run's
   * `upload` block), so unlike a submitted matrix this one allows other keys.
   */
  spec: ZMatrixSpecInput.loose(),
  /** The run this one is judged against (GET /api/v1/runs/:id/verdict), if it names one. */
  baselineRunId: z.string().nullable(),
  error: z.string().nullable(),
  cellsTotal: z.number().int(),
  cellsDone: z.number().int(),
  cellsFailed: z.number().int(),
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  /** Absent from reports frozen before runs kept it. */
  rounds: ZRoundsDecision.nullable()
    .optional()
    .describe(
      "An adaptive run's last look (spec.adaptive): why it stopped after how many rounds, or that it is adding rounds; null for a fixed number of rounds.",
    ),
  token: ZRunToken.nullable()
    .optional()
    .describe("The API token the run was queued or uploaded with; null without one. Not in reports."),
});
