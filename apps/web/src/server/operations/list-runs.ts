import { decodeRunCursor, encodeRunCursor, type TRunListPage, type TRunListQuery } from "@perflab/contracts";
import type { Db, Prisma } from "@perflab/db";
import type { RunListItemDto } from "../../lib/dto";
import { serializeRunListItem, serializeRunSummary } from "../serialize";
import { runScope } from "./run-scope";

/** Both lists' order, which their cursors (createdAt, id) follow. */
const NEWEST_FIRST: Prisma.RunOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

/** The runs after a cursor's run in NEWEST_FIRST order; every run without one. */
function runsBefore(encoded: string | null | undefined): Prisma.RunWhereInput {
  const cursor = encoded ? decodeRunCursor(encoded) : null;
  if (!cursor) return {};
  return {
    OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
  };
}

/**
 * The dashboard's list: the most recent runs, newest first (of the reader's workspace only, in a
 * private lab), from `before` (a cursor of this list) on, and the cursor of the runs after them,
 * or null when there are none. A cursor that is not one (an edited address) starts at the newest.
 */
export async function listRuns({
  db,
  limit = 50,
  workspaceId = null,
  before = null,
}: {
  db: Db;
  limit?: number;
  workspaceId?: string | null;
  before?: string | null;
}): Promise<{ runs: RunListItemDto[]; older: string | null }> {
  const take = Math.min(Math.max(limit, 1), 200);
  const runs = await db.run.findMany({
    where: { ...runScope(workspaceId), ...runsBefore(before) },
    orderBy: NEWEST_FIRST,
    take: take + 1,
    include: {
      apiToken: { select: { name: true } },
      // What an ended run's progress bar counts: a cancelled run's cells mostly never ran.
      _count: { select: { cells: { where: { status: "succeeded" } } } },
    },
  });
  const page = runs.slice(0, take);
  const last = page.at(-1);
  return {
    runs: page.map(serializeRunListItem),
    older: runs.length > take && last ? encodeRunCursor(last) : null,
  };
}

/** One page of GET /api/v1/runs: newest first, keyset-paginated by (createdAt, id). */
export async function listRunsPage({
  db,
  query,
  workspaceId = null,
}: {
  db: Db;
  query: TRunListQuery;
  workspaceId?: string | null;
}): Promise<TRunListPage> {
  const where: Prisma.RunWhereInput = {
    ...runScope(workspaceId),
    ...(query.status ? { status: query.status } : {}),
    ...(query.gitRepo ? { gitRepo: query.gitRepo } : {}),
    ...(query.gitBranch ? { gitBranch: query.gitBranch } : {}),
    ...runsBefore(query.cursor),
  };
  const runs = await db.run.findMany({
    where,
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
    include: { apiToken: { select: { id: true, name: true } } },
  });
  const page = runs.slice(0, query.limit);
  const last = page.at(-1);
  return {
    runs: page.map(serializeRunSummary),
    nextCursor: runs.length > query.limit && last ? encodeRunCursor(last) : null,
  };
}
