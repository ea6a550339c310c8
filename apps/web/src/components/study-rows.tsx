import type { StudyRowPlan } from "@perflab/contracts";

/**
 * Every system a study measured, as it named them, and what runs each here: the lab's server, how it
 * differs from the study's, or why this lab cannot run it. The lab's extra servers come last, marked.
 */
export function StudyRows({ studyId, rows }: { studyId: string; rows: StudyRowPlan[] }) {
  const studied = rows.filter((r) => !r.extra);
  const runs = studied.filter((r) => !r.missing).length;
  return (
    <div>
      <p className="text-zinc-600 dark:text-zinc-400" data-testid={`study-${studyId}-coverage`}>
        {runs} of the study's {studied.length} {studied.length === 1 ? "system" : "systems"} run here
      </p>
      <ul className="mt-1 space-y-0.5" data-testid={`study-${studyId}-rows`}>
        {rows.map((row) => (
          <li
            key={`${row.label}-${row.extra}`}
            data-testid="study-row"
            data-missing={row.missing ? "true" : "false"}
          >
            <span className="font-medium">{row.label}</span>
            {row.extra && <span className="text-zinc-500 dark:text-zinc-400"> · extra: perflab's own</span>}
            <RowStatus row={row} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function RowStatus({ row }: { row: StudyRowPlan }) {
  if (row.missing) {
    return <span className="text-amber-800 dark:text-amber-300"> · not run: {row.missing}</span>;
  }
  return (
    <span className="text-zinc-600 dark:text-zinc-400">
      {!row.extra && <> · {row.system}</>}
      {row.server && row.server !== row.label && <> → {row.server}</>}
      {row.differs && <> ({row.differs})</>}
    </span>
  );
}
