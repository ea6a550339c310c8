"use client";

import Link from "next/link";
import { useState } from "react";
import type { RunListItemDto } from "@/lib/dto";
import { formatDateTime } from "@/lib/format";
import { ProgressBar } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { buttonSecondary, link, scrollPanel, table, tbody, td, th } from "./ui";

/** Runs one comparison takes (the compare page refuses more). */
const MAX_COMPARED = 8;

/** The recent runs; tick two or more to compare them side by side. */
export function RunsTable({ runs }: { runs: RunListItemDto[] }) {
  const [selected, setSelected] = useState<string[]>([]);
  const toggle = (id: string) =>
    setSelected((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));
  const ready = selected.length >= 2 && selected.length <= MAX_COMPARED;
  // Oldest first, so "before" sits left of "after" in the comparison.
  const ordered = runs.filter((r) => selected.includes(r.id)).reverse();
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        {ready ? (
          <Link
            href={`/compare?runs=${ordered.map((r) => r.id).join(",")}`}
            className={buttonSecondary}
            data-testid="compare-selected"
          >
            Compare selected ({selected.length})
          </Link>
        ) : (
          <button type="button" className={buttonSecondary} disabled data-testid="compare-selected">
            Compare selected ({selected.length})
          </button>
        )}
        <span className="text-zinc-500 dark:text-zinc-400">
          {selected.length > MAX_COMPARED
            ? `At most ${MAX_COMPARED} runs at a time.`
            : "Tick two or more runs to compare them: a bar per server and run."}
        </span>
      </div>
      <div className={scrollPanel}>
        <table className={table} data-testid="runs-table">
          <thead>
            <tr>
              <th className={`${th} w-8`}>
                <span className="sr-only">Compare</span>
              </th>
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
                  <input
                    type="checkbox"
                    checked={selected.includes(run.id)}
                    onChange={() => toggle(run.id)}
                    aria-label={`Compare ${run.name}`}
                    data-testid={`compare-pick-${run.id}`}
                    className="size-4 accent-sky-600"
                  />
                </td>
                <td className={td}>
                  <Link href={`/runs/${run.id}`} className={`${link} font-medium`}>
                    {run.name}
                  </Link>
                  {run.source === "api" && <span className="ml-2 text-xs text-zinc-500">API</span>}
                  {run.tokenName && (
                    <span className="ml-2 text-xs text-zinc-500" data-testid="run-token-name">
                      by {run.tokenName}
                    </span>
                  )}
                </td>
                <td className={`${td} text-zinc-600 dark:text-zinc-400`}>{run.servers.join(", ")}</td>
                <td className={td}>
                  <StatusBadge status={run.status} />
                </td>
                <td className={td}>
                  <ProgressBar
                    status={run.status}
                    done={run.cellsDone}
                    total={run.cellsTotal}
                    failed={run.cellsFailed}
                    succeeded={run.cellsSucceeded}
                  />
                </td>
                <td className={`${td} text-zinc-600 dark:text-zinc-400`}>{formatDateTime(run.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
