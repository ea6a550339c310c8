import { REPORT_SLUG } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { type Access, type Caller, reportMember } from "../auth";
import { AppError } from "../errors";

/**
 * Takes a report's permalink down for good: the row goes, so its address answers 404 like one that
 * never existed (sharing the run again makes a new slug; the old link stays dead). Who may: a token
 * of the report's workspace, or in an open lab anyone, for the reports anyone there can open (not a
 * private one); a token an open lab's anyone minted counts as anyone. A report the caller may not
 * revoke is "not found", as it is when opened.
 */
export async function revokeReport({
  db,
  slug,
  caller,
  access,
}: {
  db: Db;
  slug: string;
  caller: Caller | null;
  access: Access;
}): Promise<void> {
  const notFound = new AppError("not_found", "No report lives at this address.", [
    { field: "slug", message: "no such report" },
  ]);
  if (!REPORT_SLUG.test(slug)) throw notFound;
  const report = await db.report.findUnique({
    where: { slug },
    select: { id: true, workspaceId: true, visibility: true },
  });
  if (!report) throw notFound;
  const member = reportMember(caller)?.workspaceId === report.workspaceId;
  const anyoneInOpenLab = !reportMember(caller) && access === "open" && report.visibility !== "private";
  if (!member && !anyoneInOpenLab) throw notFound;
  // deleteMany: a second revoke racing this one finds nothing and is a 404, not an error.
  const { count } = await db.report.deleteMany({ where: { id: report.id } });
  if (count === 0) throw notFound;
}
