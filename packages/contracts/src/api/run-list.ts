import { z } from "zod";
import { numeric } from "../fields.ts";
import { ZRunStatus } from "../statuses.ts";
import { isoDate, ZRunSource, ZRunToken } from "./run.ts";

// ---- GET /api/v1/runs ----

/** Position after the last run of a page: newest first, ties broken by id. */
export type RunCursor = { createdAt: Date; id: string };

/** Opaque to clients; `<createdAt ms>.<id>` so it stays readable in logs and needs no Buffer. */
export function encodeRunCursor(cursor: RunCursor): string {
  return `${cursor.createdAt.getTime()}.${cursor.id}`;
}

/** The cursor's position, or null when it is not one this API handed out. */
export function decodeRunCursor(value: string): RunCursor | null {
  const match = /^(\d{1,15})\.([\w-]{1,64})$/.exec(value);
  if (!match) return null;
  const createdAt = new Date(Number(match[1]));
  if (Number.isNaN(createdAt.getTime())) return null;
  return { createdAt, id: match[2]! };
}

const filterText = z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters");

/** Query string of GET /api/v1/runs; each value arrives as a string, unknown keys are ignored. */
export const ZRunListQuery = z.object({
  limit: numeric(
    z
      .number({ error: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(100, "must be at most 100"),
  )
    .default(20)
    .describe("Runs per page, 1–100."),
  cursor: z
    .string()
    .refine((value) => decodeRunCursor(value) !== null, "is not a cursor this API returned")
    .optional()
    .describe("The `nextCursor` of the previous page."),
  status: ZRunStatus.optional().describe("Only runs in this status."),
  gitRepo: filterText.optional().describe("Only runs of this repository, as sent in `git.repo`."),
  gitBranch: filterText.optional().describe("Only runs of this branch, as sent in `git.branch`."),
});
export type TRunListQuery = z.output<typeof ZRunListQuery>;

export const ZRunListItem = z.object({
  id: z.string(),
  name: z.string(),
  status: ZRunStatus,
  source: ZRunSource,
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  cellsTotal: z.number().int(),
  cellsDone: z.number().int(),
  cellsFailed: z.number().int(),
  git: z.object({
    repo: z.string().nullable(),
    branch: z.string().nullable(),
    commit: z.string().nullable(),
    pr: z.number().int().nullable(),
  }),
  token: ZRunToken.nullable().describe("The API token the run was queued or uploaded with."),
  /** Path of the run's dashboard page, relative to the web app's origin. */
  url: z.string().describe("Path of the run page, e.g. /runs/{id}."),
});

export const ZRunListPage = z.object({
  runs: z.array(ZRunListItem),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});

export type TRunListItem = z.infer<typeof ZRunListItem>;
export type TRunListPage = z.infer<typeof ZRunListPage>;
