import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { PageTitle } from "@/components/page-title";
import { RunsTable } from "@/components/runs-table";
import { buttonPrimary } from "@/components/ui";
import { WorkersStrip } from "@/components/workers-strip";
import { getDb } from "@/server/db";
import { listRuns } from "@/server/operations/list-runs";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";

export default async function RunsPage() {
  const { workspaceId } = await pageReader("/");
  const runs = await listRuns({ db: getDb(), workspaceId });
  return (
    <>
      <PageTitle title="Recent runs">
        {runs.length > 0 && (
          <Link href="/runs/new" className={buttonPrimary}>
            New run
          </Link>
        )}
      </PageTitle>
      <WorkersStrip />
      {runs.length === 0 ? (
        <EmptyState
          title="No runs yet"
          body="Queue a benchmark matrix: pick a server, a scenario and a load level, and watch the results arrive live."
          href="/runs/new"
          action="Start your first run"
        />
      ) : (
        <RunsTable runs={runs} />
      )}
    </>
  );
}
