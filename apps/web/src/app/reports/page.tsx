import type { Metadata } from "next";
import { EmptyState } from "@/components/empty-state";
import { PageTitle } from "@/components/page-title";
import { ReportList } from "@/components/report-list";
import { env } from "@/env";
import { getDb } from "@/server/db";
import { listReports } from "@/server/operations/list-reports";
import { pageCaller } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Reports" };

/** The permalinks made of finished runs that this viewer may see, newest first. */
export default async function ReportsPage() {
  const caller = await pageCaller();
  const reports = await listReports({
    db: getDb(),
    query: { limit: 200 },
    caller,
    access: env.PERFLAB_ACCESS,
  });
  const hidden =
    env.PERFLAB_ACCESS === "token" && !caller
      ? " Unlisted and private reports are listed once you sign in."
      : !caller
        ? " Private reports are listed once you sign in."
        : "";
  return (
    <>
      <PageTitle title="Reports" />
      {reports.length === 0 ? (
        <EmptyState
          title="No reports yet"
          body={`A report freezes a finished run behind a permalink: open a run and choose Share.${hidden}`}
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
