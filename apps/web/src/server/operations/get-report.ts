import { heldSessions, REPORT_SLUG, rssPerSession } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { ReportDto, ReportSnapshotDto } from "../../lib/report-dto";
import { type Caller, reportMember } from "../auth";
import { AppError } from "../errors";

/**
 * A report exactly as frozen at creation. Unknown and expired reports, and private ones asked for
 * without a token of their workspace, are all "not found": a 404 does not confirm that a slug exists.
 */
export async function getReport({
  db,
  slug,
  caller = null,
  now = new Date(),
}: {
  db: Db;
  slug: string;
  /** The token the request authenticated with, if any: only it can open a private report. */
  caller?: Caller | null;
  now?: Date;
}): Promise<ReportDto> {
  const notFound = new AppError("not_found", "No report lives at this address, or it has expired.", [
    { field: "slug", message: "names no report, or one that has expired" },
  ]);
  if (!REPORT_SLUG.test(slug)) throw notFound;
  const report = await db.report.findUnique({ where: { slug } });
  if (!report) throw notFound;
  if (report.visibility === "private" && reportMember(caller)?.workspaceId !== report.workspaceId) {
    throw notFound;
  }
  if (report.expiresAt && report.expiresAt <= now) throw notFound;
  const selection = report.selection as { runId?: unknown } | null;
  const snapshot = report.snapshot as unknown as ReportSnapshotDto;
  return {
    slug: report.slug,
    title: report.title,
    description: report.description,
    visibility: report.visibility,
    runId: typeof selection?.runId === "string" ? selection.runId : snapshot.run.id,
    createdAt: report.createdAt.toISOString(),
    expiresAt: report.expiresAt ? report.expiresAt.toISOString() : null,
    snapshot: {
      ...snapshot,
      // Reports frozen before open-model levels and dropped calls existed read as closed-model cells,...
      cells: snapshot.cells.map((cell) => ({
        ...cell,
        rate: cell.rate ?? null,
        maxVus: cell.maxVus ?? null,
        // ...and before the machine's other work was: unknown, not flagged.
        otherCpuPct: cell.otherCpuPct ?? null,
        machineBusy: cell.machineBusy ?? false,
        // ...and before the runtime's own version was kept: unknown.
        runtimeVersion: cell.runtimeVersion ?? null,
        // ...and before a warming server was flagged: not flagged.
        warmingUp: cell.warmingUp ?? false,
        // ...and before held sessions were reported: the same numbers, from what the cell kept.
        heldSessions: cell.heldSessions ?? heldSessions(cell.params, cell.vus),
        rssPerSessionBytes:
          cell.rssPerSessionBytes ??
          rssPerSession({
            params: cell.params,
            vus: cell.vus,
            idleRssBytes: cell.idleRssBytes ?? null,
            rssAvgBytes: cell.summary?.rssAvgBytes ?? null,
          }),
        summary: cell.summary
          ? {
              ...cell.summary,
              droppedCalls: cell.summary.droppedCalls ?? null,
              drift: cell.summary.drift ?? null,
            }
          : null,
      })),
    },
  };
}
