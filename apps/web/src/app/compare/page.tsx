import { splitRunIds } from "@perflab/contracts";
import type { Metadata } from "next";
import { compareRunRows } from "@/components/compare-run-rows";
import { CompareRunsTable } from "@/components/compare-runs-table";
import { ComparisonSection } from "@/components/comparison";
import { EmptyState } from "@/components/empty-state";
import { OverlayCharts } from "@/components/overlay-charts";
import { PageTitle } from "@/components/page-title";
import { RunSummary } from "@/components/run-summary";
import { mergeRuns } from "@/lib/compare";
import { MAX_POINTS_PER_CELL } from "@/lib/downsample";
import { terminalCellStatuses } from "@/lib/dto";
import { catalogServerNames } from "@/server/catalog";
import { getDb } from "@/server/db";
import { getCellPoints } from "@/server/operations/get-cell-points";
import { getRunsToCompare, MAX_RUNS_TO_COMPARE } from "@/server/operations/get-runs-to-compare";
import { pageReader, pathWithQuery } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare runs" };

/** “a”, “a” and “b”, “a”, “b” and “c”. */
const listed = (ids: string[]) => {
  const quoted = ids.map((id) => `“${id}”`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}` : quoted[0];
};

/**
 * Points the page ships for its over-time curves, over all its cells: a run page's worth. Each cell
 * gets its share, from MAX_POINTS_PER_CELL down to a floor a curve still reads at (a 24-hour soak
 * in 10-minute buckets).
 */
const POINTS_PER_PAGE = 200_000;
const MIN_POINTS_PER_CELL = 150;
const pointsPerCell = (cells: number) =>
  Math.max(
    MIN_POINTS_PER_CELL,
    Math.min(MAX_POINTS_PER_CELL, Math.floor(POINTS_PER_PAGE / Math.max(1, cells))),
  );

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * Several runs side by side: a server measured in each gets a bar per run ("go · 3f2a9c1"), so a
 * change between two commits, two machines or two days shows as it would within one run.
 */
export default async function ComparePage({ searchParams }: Props) {
  const query = await searchParams;
  const { workspaceId } = await pageReader(pathWithQuery("/compare", query));
  const runIds = splitRunIds(query.runs);
  if (runIds.length < 2 || runIds.length > MAX_RUNS_TO_COMPARE) {
    return (
      <>
        <PageTitle title="Compare runs" />
        <EmptyState
          title={
            runIds.length < 2 ? "Pick at least two runs" : `At most ${MAX_RUNS_TO_COMPARE} runs at a time`
          }
          body={`Tick two to ${MAX_RUNS_TO_COMPARE} runs in the list of runs and choose “Compare selected”, or open /compare?runs=<id>,<id>.`}
          href="/"
          action="Back to the runs"
        />
      </>
    );
  }
  const db = getDb();
  const { runs, unknown } = await getRunsToCompare({ db, runIds, workspaceId });
  const { cells, serverOrder, tags } = mergeRuns(runs);
  // Finished cells only: a comparison is of results, and a running cell's page follows it live.
  const charted = cells.filter((c) => terminalCellStatuses.includes(c.status)).map((c) => c.id);
  const points =
    runs.length >= 2
      ? await getCellPoints({ db, cellIds: charted, maxPointsPerCell: pointsPerCell(charted.length) })
      : {};
  const catalog = catalogServerNames();
  return (
    <div className="space-y-8" data-testid="compare-runs">
      <PageTitle title="Compare runs" />
      {unknown.length > 0 && (
        <p role="alert" className="text-sm text-rose-600 dark:text-rose-400" data-testid="compare-unknown">
          {unknown.length === 1 ? "No run has the id" : "No runs have the ids"} {listed(unknown)}
          {runs.length >= 2 ? `; the comparison leaves ${unknown.length === 1 ? "it" : "them"} out.` : "."}
        </p>
      )}
      {runs.length > 0 && <CompareRunsTable rows={compareRunRows(runs, tags)} />}
      {runs.length >= 2 ? (
        <>
          <ComparisonSection cells={cells} serverOrder={serverOrder} catalog={catalog} />
          <OverlayCharts cells={cells} points={points} serverOrder={serverOrder} catalog={catalog} />
          <RunSummary cells={cells} catalog={catalog} />
        </>
      ) : (
        <EmptyState
          title="Nothing to compare"
          body={`${
            runs.length === 1 ? "Only one of these runs exists, and a comparison needs two. " : ""
          }Tick two to ${MAX_RUNS_TO_COMPARE} runs in the list of runs and choose “Compare selected”.`}
          href="/"
          action="Back to the runs"
        />
      )}
    </div>
  );
}
