import type { Figure, TMatrixSpecInput } from "@perflab/contracts";
import type { CellDto } from "@/lib/dto";
import { formatInt, formatMeasure, formatPct } from "@/lib/format";
import { levelLabel } from "@/lib/labels";
import { studyWorkload } from "@/lib/studies";
import { type BesideRow, type BesideTable, metricLabel, studyBeside } from "@/lib/study-beside";
import { scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

const figure = (value: Figure | null, metric: BesideTable["metric"]) => {
  if (value === null) return "—";
  const one = (v: number) => (metric === "rps" ? formatInt(v) : formatMeasure(v));
  return typeof value === "number" ? one(value) : `${one(value[0])}–${one(value[1])}`;
};
const share = (value: number | null) => (value === null ? "—" : formatPct(value * 100));

/**
 * A study's run beside the study: for each workload and load level, every row the study printed with
 * its figure and this run's, each as a share of its side's best, and where the orderings part.
 */
export function StudyBesideSection({
  spec,
  cells,
}: {
  spec: Pick<TMatrixSpecInput, "study" | "scenarios" | "loadLevels" | "servers">;
  cells: CellDto[];
}) {
  const tables = studyBeside(spec, cells);
  if (tables.length === 0) return null;
  return (
    <section aria-label="Published beside reproduced" data-testid="study-beside">
      <h2 className="mb-1 text-lg font-semibold">Published beside reproduced</h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
        The study's own figures, row by row, beside this run's. They come from other machines: compare each
        side's shares of its best row and the order, not the numbers.
      </p>
      <div className="space-y-4">
        {tables.map((t) => (
          <BesideTableView key={`${t.scenario}-${t.level.vus}-${t.level.rate}`} spec={spec} t={t} />
        ))}
      </div>
    </section>
  );
}

function BesideTableView({ spec, t }: { spec: Pick<TMatrixSpecInput, "scenarios">; t: BesideTable }) {
  const scenario = spec.scenarios[t.scenario]!;
  const title = [
    studyWorkload(scenario as { id: string; params?: Record<string, unknown> }),
    levelLabel(t.level),
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <div className={scrollPanel} data-testid="study-beside-table">
      <h3 className="px-3 pt-3 text-sm font-medium">
        {title}{" "}
        <span className="font-normal text-zinc-500 dark:text-zinc-400">· {metricLabel[t.metric]}</span>
      </h3>
      <table className={table}>
        <thead>
          <tr>
            <th className={th}>Study's row</th>
            <th className={th}>Runs here as</th>
            <th className={thNum}>Study</th>
            <th className={thNum}>of its best</th>
            <th className={thNum}>This run</th>
            <th className={thNum}>of its best</th>
            <th className={th}>Notes</th>
          </tr>
        </thead>
        <tbody className={tbody}>
          {t.rows.map((row) => (
            <BesideRowView key={`${row.label}-${row.extra}`} row={row} metric={t.metric} />
          ))}
        </tbody>
      </table>
      <p className="px-3 py-2 text-sm" data-testid="study-beside-order">
        {orderText(t)}
        {t.note && <span className="text-zinc-500 dark:text-zinc-400"> The study's figures: {t.note}.</span>}
      </p>
    </div>
  );
}

function BesideRowView({ row, metric }: { row: BesideRow; metric: BesideTable["metric"] }) {
  const notes = [row.missing ? `not run: ${row.missing}` : null, row.differs, ...row.flags].filter(Boolean);
  return (
    <tr data-testid="study-beside-row">
      <td className={td}>
        {row.label}
        {row.extra && <span className="text-zinc-500 dark:text-zinc-400"> (extra)</span>}
      </td>
      <td className={td}>{row.missing ? "—" : row.server}</td>
      <td className={tdNum}>{figure(row.published, metric)}</td>
      <td className={tdNum}>{share(row.studyShare)}</td>
      <td className={tdNum}>{figure(row.lab, metric)}</td>
      <td className={tdNum}>{share(row.labShare)}</td>
      <td className="px-3 py-2 text-zinc-600 dark:text-zinc-400">{notes.join("; ")}</td>
    </tr>
  );
}

function orderText(t: BesideTable): string {
  if (t.compared < 2) return "Too few rows measured on both sides to compare their order.";
  if (t.swapped.length === 0) return `The order agrees: ${t.compared} rows rank the same on both sides.`;
  const pairs = t.swapped.map(([a, b]) => `${a} and ${b}`).join(", ");
  return `The order differs: this run ranks ${pairs} the other way round.`;
}
