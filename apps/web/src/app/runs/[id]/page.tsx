import { ZVerdictQuery } from "@perflab/contracts";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CellEnvironment } from "@/components/cell-environment";
import { ReportList } from "@/components/report-list";
import { RunSummary } from "@/components/run-summary";
import { RunView } from "@/components/run-view";
import { VerdictPanel } from "@/components/verdict-panel";
import { env } from "@/env";
import { DEFAULT_TOLERANCE_PCT } from "@/lib/verdict";
import { catalogServerNames } from "@/server/catalog";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { isUnstorableText } from "@/server/http";
import { getRunWithBuilds } from "@/server/operations/get-run";
import { getVerdict } from "@/server/operations/get-verdict";
import { listReports } from "@/server/operations/list-reports";
import { pageReader, pathWithQuery } from "@/server/session";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

async function load(id: string, workspaceId: string | null) {
  try {
    // A run of another workspace (a private lab's) is "not found", as one that does not exist.
    return await getRunWithBuilds({ db: getDb(), runId: id, workspaceId });
  } catch (error) {
    // An id Postgres cannot even look up (a NUL byte) names no run either.
    if ((error instanceof AppError && error.code === "not_found") || isUnstorableText(error)) notFound();
    throw error;
  }
}

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const { id } = await params;
  const { workspaceId } = await pageReader(
    pathWithQuery(`/runs/${encodeURIComponent(id)}`, await searchParams),
  );
  const { run } = await load(id, workspaceId);
  return { title: run.name };
}

/** The verdict against the run's baseline once both have finished (the page refreshes when this one ends). */
async function verdictOf(runId: string, tolerancePct: number, workspaceId: string | null) {
  try {
    return await getVerdict({ db: getDb(), runId, tolerancePct, workspaceId });
  } catch (error) {
    // Not finished yet, or the baseline was deleted: no verdict to show.
    if (error instanceof AppError) return null;
    throw error;
  }
}

/** `?tolerance=5` judges at that tolerance, as the API and the CLI's --tolerance do; else the default. */
function toleranceOf(query: Record<string, string | string[] | undefined>): number {
  const parsed = ZVerdictQuery.shape.tolerance.safeParse(query.tolerance);
  return parsed.success && parsed.data !== undefined ? parsed.data : DEFAULT_TOLERANCE_PCT;
}

export default async function RunPage({ params, searchParams }: Props) {
  const { id } = await params;
  const query = await searchParams;
  const { caller, workspaceId } = await pageReader(pathWithQuery(`/runs/${encodeURIComponent(id)}`, query));
  const { run, cells } = await load(id, workspaceId);
  const catalog = catalogServerNames();
  const verdict =
    run.baselineRunId && !["queued", "ingesting", "running"].includes(run.status)
      ? await verdictOf(run.id, toleranceOf(query), workspaceId)
      : null;
  // The permalinks already made of this run (the Share button adds to them), as the viewer may see them.
  const reports = await listReports({
    db: getDb(),
    query: { runId: run.id, limit: 50 },
    caller,
    access: env.PERFLAB_ACCESS,
  });
  // Where and how each started cell ran; refreshed with the page (it reloads when the run ends).
  const started = cells.filter((cell) => cell.startedAt !== null);
  return (
    <div className="space-y-8">
      <RunView run={run} cells={cells} catalog={catalog} signedIn={caller !== null} />
      {verdict && <VerdictPanel verdict={verdict} />}
      <RunSummary cells={cells} catalog={catalog} />
      {started.length > 0 && <CellEnvironment cells={started} requestedLimits={run.spec.limits} />}
      {reports.length > 0 && (
        <section className="space-y-3" data-testid="run-reports">
          <h2 className="text-lg font-semibold">Reports of this run</h2>
          <ReportList reports={reports} showRun={false} />
        </section>
      )}
    </div>
  );
}
