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

export default async function RunsPage({
  searchParams,
}: {
  searchParams: Promise<{ before?: string | string[] }>;
}) {
  const { before: given } = await searchParams;
  const before = typeof given === "string" ? given : null;
  const { workspaceId } = await pageReader(before ? `/?before=${encodeURIComponent(before)}` : "/");
  const { runs, older } = await listRuns({ db: getDb(), workspaceId, before });
  // An older page: its runs, or none left (a cursor past the oldest run, or an edited address).
  const paged = before !== null;
  return (
    <>
      <PageTitle title={paged ? "Older runs" : "Recent runs"}>
        {runs.length > 0 && (
          <Link href="/runs/new" className={buttonPrimary}>
            New run
          </Link>
        )}
      </PageTitle>
      <WorkersStrip />
      {runs.length === 0 && paged ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="runs-none-older">
          No older runs.{" "}
          <Link href="/" className="underline">
            Back to the newest
          </Link>
        </p>
      ) : runs.length === 0 ? (
        <EmptyState
          title="No runs yet"
          body="Queue a benchmark matrix: pick a server, a scenario and a load level, and watch the results arrive live."
          href="/runs/new"
          action="Start your first run"
        />
      ) : (
        <>
          <RunsTable runs={runs} />
          {(paged || older) && (
            <nav
              aria-label="Older and newer runs"
              className="mt-4 flex gap-4 text-sm"
              data-testid="runs-pages"
            >
              {paged && (
                <Link href="/" className="underline" data-testid="runs-newest">
                  ← Newest runs
                </Link>
              )}
              {older && (
                <Link
                  href={`/?before=${encodeURIComponent(older)}`}
                  className="underline"
                  data-testid="runs-older"
                >
                  Older runs →
                </Link>
              )}
            </nav>
          )}
        </>
      )}
    </>
  );
}
