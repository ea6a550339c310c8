import type { TReportListQuery } from "@perflab/contracts";
import type { Db, Prisma, ReportVisibility } from "@perflab/db";
import type { ListedReportDto } from "../../lib/report-dto";
import { type Access, type Caller, reportMember } from "../auth";

/**
 * Which reports a caller sees in lists: every report of its workspace with a token; public reports
 * otherwise, in every lab. Unlisted reports are found only by those given the link, and private ones
 * open only for their workspace's tokens (not one an open lab's anyone minted: `reportMember`). A
 * private lab lists a token's own workspace only, as it does runs: another workspace's public
 * reports still open from their permalinks.
 */
export function listableReports(reader: Caller | null, access: Access): Prisma.ReportWhereInput {
  const caller = reportMember(reader);
  const shared: ReportVisibility[] = ["public"];
  if (!caller) return { visibility: { in: shared } };
  if (access === "private") return { workspaceId: caller.workspaceId };
  return { OR: [{ workspaceId: caller.workspaceId }, { visibility: { in: shared } }] };
}

/** Live reports (not expired), newest first, without their snapshots. */
export async function listReports({
  db,
  query,
  caller,
  access,
  now = new Date(),
}: {
  db: Db;
  query: TReportListQuery;
  caller: Caller | null;
  access: Access;
  now?: Date;
}): Promise<ListedReportDto[]> {
  const reports = await db.report.findMany({
    where: {
      AND: [
        listableReports(caller, access),
        { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
        query.runId ? { selection: { path: ["runId"], equals: query.runId } } : {},
      ],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: {
      slug: true,
      title: true,
      description: true,
      visibility: true,
      selection: true,
      createdAt: true,
      expiresAt: true,
    },
  });
  const runIdOf = (selection: unknown) => {
    const runId = (selection as { runId?: unknown } | null)?.runId;
    return typeof runId === "string" ? runId : "";
  };
  // The runs' names, in one query: a list of ids says nothing to a reader.
  const runIds = [...new Set(reports.map((r) => runIdOf(r.selection)).filter((id) => id !== ""))];
  const runs =
    runIds.length === 0
      ? []
      : await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, name: true } });
  const runNames = new Map(runs.map((r) => [r.id, r.name]));
  return reports.map((report) => {
    const selection = report.selection as { runId?: unknown; cellIds?: unknown } | null;
    const runId = runIdOf(selection);
    return {
      slug: report.slug,
      title: report.title,
      description: report.description,
      visibility: report.visibility,
      runId,
      runName: runNames.get(runId) || null,
      cells: Array.isArray(selection?.cellIds) ? selection.cellIds.length : 0,
      createdAt: report.createdAt.toISOString(),
      expiresAt: report.expiresAt ? report.expiresAt.toISOString() : null,
    };
  });
}
