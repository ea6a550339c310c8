import Link from "next/link";
import type { RunListItemDto } from "@/lib/dto";
import { formatDateTime } from "@/lib/format";
import { ProgressBar } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { link, panel, table, tbody, td, th } from "./ui";

export function RunsTable({ runs }: { runs: RunListItemDto[] }) {
  return (
    <div className={`${panel} overflow-x-auto`}>
      <table className={table} data-testid="runs-table">
        <thead>
          <tr>
            <th className={th}>Name</th>
            <th className={th}>Servers</th>
            <th className={th}>Status</th>
            <th className={`${th} w-48`}>Progress</th>
            <th className={th}>Created</th>
          </tr>
        </thead>
        <tbody className={tbody}>
          {runs.map((run) => (
            <tr
              key={run.id}
              data-testid={`run-row-${run.id}`}
              className="hover:bg-zinc-50 dark:hover:bg-zinc-800/40"
            >
              <td className={td}>
                <Link href={`/runs/${run.id}`} className={`${link} font-medium`}>
                  {run.name}
                </Link>
                {run.source === "api" && <span className="ml-2 text-xs text-zinc-500">API</span>}
              </td>
              <td className={`${td} text-zinc-600 dark:text-zinc-400`}>{run.servers.join(", ")}</td>
              <td className={td}>
                <StatusBadge status={run.status} />
              </td>
              <td className={td}>
                <ProgressBar done={run.cellsDone} total={run.cellsTotal} failed={run.cellsFailed} />
              </td>
              <td className={`${td} text-zinc-600 dark:text-zinc-400`}>{formatDateTime(run.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
