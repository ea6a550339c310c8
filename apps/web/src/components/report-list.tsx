"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatDateTime } from "@/lib/format";
import type { ListedReportDto } from "@/lib/report-dto";
import { SignInHint } from "./sign-in-form";
import { buttonSecondary, link, scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

const visibilityText: Record<ListedReportDto["visibility"], string> = {
  public: "public",
  unlisted: "unlisted",
  private: "private",
};

/**
 * Reports as a table: title (the permalink), visibility, cells, when made, the run it froze (where
 * the list spans runs) and a Revoke button that asks first, then deletes the report so its address
 * answers 404 from then on.
 */
export function ReportList({
  reports,
  showRun = true,
}: {
  reports: ListedReportDto[];
  /** The run column: off on a run's own page. */
  showRun?: boolean;
}) {
  const router = useRouter();
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ message: string; signIn: boolean } | null>(null);

  async function revoke(slug: string) {
    setBusy(slug);
    setError(null);
    try {
      const response = await fetch(`/api/v1/reports/${encodeURIComponent(slug)}`, { method: "DELETE" });
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as { detail?: string } | null;
        setError({
          message: body?.detail ?? `The report was not revoked (${response.status}).`,
          signIn: response.status === 401,
        });
        return;
      }
      setConfirm(null);
      router.refresh();
    } catch {
      setError({ message: "The report was not revoked: the server did not answer.", signIn: false });
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="space-y-2">
      <div className={scrollPanel}>
        <table className={table} data-testid="report-list">
          <thead>
            <tr>
              <th className={th}>Report</th>
              <th className={th}>Visibility</th>
              <th className={thNum}>Cells</th>
              <th className={th}>Shared</th>
              {showRun && <th className={th}>Run</th>}
              <th className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {reports.map((report) => (
              <tr key={report.slug} data-testid="report-row" data-slug={report.slug}>
                <td className={`${td} max-w-md truncate`}>
                  <Link href={`/r/${report.slug}`} className={link} title={report.description ?? undefined}>
                    {report.title}
                  </Link>
                </td>
                <td className={td}>{visibilityText[report.visibility]}</td>
                <td className={tdNum}>{report.cells}</td>
                <td className={`${td} text-zinc-600 dark:text-zinc-400`}>
                  {formatDateTime(report.createdAt)}
                </td>
                {showRun && (
                  <td className={td}>
                    {report.runName ? (
                      <Link href={`/runs/${report.runId}`} className={link} title={`run ${report.runId}`}>
                        {report.runName}
                      </Link>
                    ) : (
                      // The run is gone: its id is all the report still knows of it.
                      <span
                        className="font-mono text-xs text-zinc-600 dark:text-zinc-400"
                        title="run deleted"
                      >
                        {report.runId}
                      </span>
                    )}
                  </td>
                )}
                <td className={`${td} text-right`}>
                  {confirm === report.slug ? (
                    <span className="inline-flex items-center gap-2">
                      <span className="text-xs text-zinc-600 dark:text-zinc-400">
                        Its link stops working.
                      </span>
                      <button
                        type="button"
                        className={buttonSecondary}
                        disabled={busy === report.slug}
                        onClick={() => revoke(report.slug)}
                        data-testid="report-revoke-confirm"
                      >
                        {busy === report.slug ? "Revoking…" : "Yes, revoke"}
                      </button>
                      <button type="button" className={buttonSecondary} onClick={() => setConfirm(null)}>
                        Keep
                      </button>
                    </span>
                  ) : (
                    <button
                      type="button"
                      className={buttonSecondary}
                      onClick={() => {
                        setError(null);
                        setConfirm(report.slug);
                      }}
                      data-testid="report-revoke"
                      aria-label={`Revoke ${report.title} (${report.slug})`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && (
        <p
          role="alert"
          className="text-sm text-rose-600 dark:text-rose-400"
          data-testid="report-revoke-error"
        >
          {error.message}
          <SignInHint show={error.signIn} />
        </p>
      )}
    </div>
  );
}
