import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { AdaptiveRounds } from "@/components/adaptive-rounds";
import { CellEnvironment } from "@/components/cell-environment";
import { ComparisonSection } from "@/components/comparison";
import { ExportCsv } from "@/components/export-csv";
import { OverlayCharts } from "@/components/overlay-charts";
import { RunHeader } from "@/components/run-header";
import { RunSummary } from "@/components/run-summary";
import { StudyBesideSection } from "@/components/study-beside";
import { link } from "@/components/ui";
import { isComparable } from "@/lib/compare";
import { formatDateTime } from "@/lib/format";
import { succeededCells } from "@/lib/progress";
import { catalogServerNames } from "@/server/catalog";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { requestOrigin } from "@/server/http";
import { getReport } from "@/server/operations/get-report";
import { pageCaller } from "@/server/session";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ slug: string }> };

/** One read per request, shared by the metadata and the page. */
const load = cache(async (slug: string) => {
  try {
    return await getReport({ db: getDb(), slug, caller: await pageCaller() });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const report = await load((await params).slug);
  const description = report.description ?? `perflab report of run ${report.snapshot.run.name}`;
  return {
    title: report.title,
    description: report.description ?? undefined,
    // Absolute image and page URLs, as the client reached the lab (opengraph-image.tsx draws the image).
    metadataBase: new URL(requestOrigin(new Request("http://localhost/", { headers: await headers() }))),
    openGraph: {
      type: "article",
      title: report.title,
      description,
      url: `/r/${report.slug}`,
      siteName: "perflab",
    },
    twitter: { card: "summary_large_image", title: report.title, description },
    // Unlisted reports are for whoever has the link, not for search engines.
    robots: report.visibility === "public" ? undefined : { index: false, follow: false },
  };
}

/** A frozen report: rendered only from its snapshot, with no live data and no client fetching. */
export default async function ReportPage({ params }: Props) {
  const report = await load((await params).slug);
  const { run, cells } = report.snapshot;
  const catalog = catalogServerNames();
  return (
    <div className="space-y-8" data-testid="report">
      <div
        role="note"
        data-testid="report-banner"
        className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200"
      >
        Frozen report of run <span className="font-medium">{run.name}</span> (
        <span className="font-mono text-xs">{run.id}</span>), created at {formatDateTime(report.createdAt)}
        {report.expiresAt && <>, expires at {formatDateTime(report.expiresAt)}</>}. Later changes to the run
        do not show here.{" "}
        <Link href={`/runs/${report.runId}`} className={link} data-testid="report-live-link">
          Open the live run
        </Link>
      </div>
      {(report.title !== run.name || report.description) && (
        <div className="space-y-2">
          {report.title !== run.name && (
            <h2 className="text-xl font-semibold tracking-tight" data-testid="report-title">
              {report.title}
            </h2>
          )}
          {report.description && (
            <p className="whitespace-pre-line text-sm text-zinc-600 dark:text-zinc-400">
              {report.description}
            </p>
          )}
        </div>
      )}
      <RunHeader
        run={run}
        connection="closed"
        succeeded={succeededCells(cells)}
        actions={<ExportCsv href={`/api/v1/reports/${report.slug}/cells.csv`} />}
      />
      <AdaptiveRounds run={run} />
      <StudyBesideSection spec={run.spec} cells={cells} />
      {isComparable(cells) && (
        <ComparisonSection cells={cells} serverOrder={run.spec.servers ?? []} catalog={catalog} />
      )}
      {report.snapshot.points && (
        <OverlayCharts
          cells={cells}
          points={report.snapshot.points}
          serverOrder={run.spec.servers ?? []}
          catalog={catalog}
        />
      )}
      <RunSummary cells={cells} catalog={catalog} />
      <CellEnvironment cells={cells} requestedLimits={run.spec.limits} />
    </div>
  );
}
