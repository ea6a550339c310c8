import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { PageTitle } from "@/components/page-title";
import { ReportList } from "@/components/report-list";
import { link } from "@/components/ui";
import { env } from "@/env";
import { getDb } from "@/server/db";
import { listReports } from "@/server/operations/list-reports";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Reports" };

/** The permalinks made of finished runs that this viewer may see, newest first. */
export default async function ReportsPage() {
  const { caller } = await pageReader("/reports");
  const reports = await listReports({
    db: getDb(),
    query: { limit: 200 },
    caller,
    access: env.PERFLAB_ACCESS,
  });
  // What a sign-in would add to the list, with the way to it (coming back here).
  const hidden = caller ? null : (
    <span data-testid="reports-sign-in">
      {" "}
      {env.PERFLAB_ACCESS !== "open" ? "Unlisted and private reports" : "Private reports"} are listed once you{" "}
      <Link href="/sign-in?next=%2Freports" className={link}>
        sign in
      </Link>
      .
    </span>
  );
  return (
    <>
      <PageTitle title="Reports" />
      {reports.length === 0 ? (
        <EmptyState
          title="No reports yet"
          body={<>A report freezes a finished run behind a permalink: open a run and choose Share.{hidden}</>}
          href="/"
          action="Go to runs"
        />
      ) : (
        <div className="space-y-3">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Each report is a run frozen when it was shared; revoking one takes its link down for good.
            {hidden}
          </p>
          <ReportList reports={reports} />
        </div>
      )}
    </>
  );
}
