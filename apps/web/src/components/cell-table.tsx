import type { CellDto } from "@/lib/dto";
import { levelLabel, rateWord, sharedScenario, workloadName } from "@/lib/labels";
import { limitsLabel, type RequestedLimits } from "@/lib/limits";
import { StatusBadge } from "./status-badge";
import { scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

/** Longer than this, an error folds into a disclosure rather than widening the table. */
const ERROR_FOLD_CHARS = 40;

/**
 * A cell's error. A long one shows its start in a disclosure that opens to the whole text, so it is
 * reachable by keyboard and touch, not only by hovering, and the table stays compact.
 */
function CellError({ text, testId }: { text: string; testId: string }) {
  if (text.length <= ERROR_FOLD_CHARS) return <span data-testid={testId}>{text}</span>;
  return (
    <details className="group" data-testid={testId}>
      <summary className="cursor-pointer truncate">
        <span className="group-open:hidden">{text}</span>
        <span className="hidden group-open:inline">Full error</span>
      </summary>
      <p className="mt-1 whitespace-pre-wrap break-words">{text}</p>
    </details>
  );
}

/** The chart button's name, the cell in words: "Chart go, echo, 10 VUs, round 2 (cell 3)". */
export function chartButtonName(cell: CellDto): string {
  const what = workloadName(cell) !== cell.scenario ? `, ${workloadName(cell)}` : "";
  const level = levelLabel(cell);
  return `Chart ${cell.serverName}${what}${level === null ? "" : `, ${level}`}, round ${cell.round} (cell ${cell.index})`;
}

export function CellTable({
  cells,
  requestedLimits,
  selectedId,
  onSelect,
}: {
  cells: CellDto[];
  /** The run's requested limits, shown as such for a cell whose driver has not applied them. */
  requestedLimits?: RequestedLimits;
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const scenario = sharedScenario(cells);
  return (
    <div className={scrollPanel}>
      <table className={table} data-testid="cell-table">
        <thead>
          <tr>
            <th className={thNum}>#</th>
            <th className={th}>Server</th>
            <th className={th}>Scenario</th>
            <th
              className={thNum}
              title={`VUs looping back to back (closed model) or ${rateWord(scenario)} started per second (open model)`}
            >
              Load
            </th>
            <th className={thNum}>Round</th>
            <th className={th}>Driver</th>
            <th className={th}>Status</th>
            <th className={th}>Stage</th>
            <th className={th}>Error</th>
            <th className={th}>
              <span className="sr-only">Chart</span>
            </th>
          </tr>
        </thead>
        <tbody className={tbody}>
          {cells.map((cell) => {
            const selected = cell.id === selectedId;
            const limits = limitsLabel(cell, requestedLimits);
            return (
              <tr
                key={cell.id}
                data-testid={`cell-row-${cell.index}`}
                data-status={cell.status}
                aria-selected={selected}
                className={
                  selected ? "bg-sky-50/70 dark:bg-sky-950/40" : "hover:bg-zinc-50 dark:hover:bg-zinc-800/40"
                }
              >
                <td className={`${tdNum} text-zinc-500`}>{cell.index}</td>
                <td className={`${td} font-medium`}>{cell.serverName}</td>
                <td className={td}>
                  {cell.scenario}
                  {workloadName(cell) !== cell.scenario && (
                    <span className="text-zinc-500 dark:text-zinc-400"> · {workloadName(cell)}</span>
                  )}
                </td>
                <td className={tdNum} title={cell.maxVus == null ? undefined : `at most ${cell.maxVus} VUs`}>
                  {levelLabel(cell) ?? "—"}
                </td>
                <td className={tdNum}>{cell.round}</td>
                <td className={`${td} text-xs`} data-testid={`cell-driver-${cell.index}`}>
                  <div>{cell.driver}</div>
                  {limits && (
                    <div
                      className={limits.applied ? "text-zinc-500" : "text-zinc-600 italic dark:text-zinc-400"}
                      data-testid={`cell-limits-${cell.index}`}
                      data-applied={limits.applied}
                    >
                      {limits.text}
                    </div>
                  )}
                  {cell.image && (
                    <div className="font-mono text-zinc-500" data-testid={`cell-image-${cell.index}`}>
                      <div>{cell.image}</div>
                      {cell.imageId && (
                        <div title={cell.imageId}>{cell.imageId.replace(/^sha256:/, "").slice(0, 12)}</div>
                      )}
                    </div>
                  )}
                </td>
                <td className={td}>
                  <StatusBadge status={cell.status} testId={`cell-status-${cell.index}`} />
                </td>
                <td className={`${td} text-zinc-600 dark:text-zinc-400`}>
                  {cell.status === "running" || cell.status === "queued" ? (cell.stage ?? "—") : "—"}
                </td>
                <td className={`${td} max-w-xs text-rose-600 dark:text-rose-400`}>
                  <CellError
                    text={`${cell.error ?? ""}${cell.oomKilled ? " (OOM-killed)" : ""}`}
                    testId={`cell-error-${cell.index}`}
                  />
                </td>
                <td className={td}>
                  {/* A toggle of the charts' cell: pressed for the one charted, which stays in the tab order. */}
                  <button
                    type="button"
                    onClick={() => onSelect(cell.id)}
                    aria-pressed={selected}
                    aria-label={chartButtonName(cell)}
                    data-testid={`chart-cell-${cell.index}`}
                    className={`whitespace-nowrap text-xs ${
                      selected
                        ? "font-medium text-zinc-700 dark:text-zinc-200"
                        : "text-sky-700 hover:underline dark:text-sky-400"
                    }`}
                  >
                    {selected ? "charted" : "chart"}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
