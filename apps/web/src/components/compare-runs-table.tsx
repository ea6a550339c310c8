import Link from "next/link";
import { formatDateTime } from "@/lib/format";
import { capitalized } from "@/lib/labels";
import type { CompareRunRow } from "./compare-run-rows";
import { StatusBadge } from "./status-badge";
import { link, scrollPanel, table, tbody, td, th } from "./ui";

/** The compared runs: tag, name (and why a run has no latency here), status, commit, creation. */
export function CompareRunsTable({ rows }: { rows: CompareRunRow[] }) {
  return (
    <section aria-label="Runs" className={scrollPanel}>
      <table className={table} data-testid="compare-runs-table">
        <thead>
          <tr>
            <th className={th}>Tag</th>
            <th className={th}>Run</th>
            <th className={th}>Status</th>
            <th className={th}>Commit</th>
            <th className={th}>Created</th>
          </tr>
        </thead>
        <tbody className={tbody}>
          {rows.map((row) => (
            <tr key={row.id} data-testid={`compare-run-${row.id}`}>
              <td className={`${td} font-mono text-xs`}>{row.tag}</td>
              <td className={td}>
                <Link href={`/runs/${row.id}`} className={`${link} font-medium`}>
                  {row.name}
                </Link>
                {row.unusable && (
                  <p
                    className="mt-1 max-w-prose text-xs text-amber-700 dark:text-amber-300"
                    data-testid={`compare-run-unusable-${row.id}`}
                  >
                    {capitalized(row.unusable)}
                  </p>
                )}
              </td>
              <td className={td}>
                <StatusBadge status={row.status} />
              </td>
              <td className={`${td} font-mono text-xs text-zinc-600 dark:text-zinc-400`}>
                {row.commit ?? "—"}
              </td>
              <td className={`${td} text-zinc-600 dark:text-zinc-400`}>{formatDateTime(row.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
