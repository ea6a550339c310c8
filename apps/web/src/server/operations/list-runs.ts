import type { Db } from "@perflab/db";
import type { RunListItemDto } from "../../lib/dto";
import { serializeRunListItem } from "../serialize";

/** The most recent runs, newest first. */
export async function listRuns({ db, limit = 50 }: { db: Db; limit?: number }): Promise<RunListItemDto[]> {
  const runs = await db.run.findMany({
    orderBy: { createdAt: "desc" },
    take: Math.min(Math.max(limit, 1), 200),
  });
  return runs.map(serializeRunListItem);
}
