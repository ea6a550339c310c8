import type { TStormFigures, TStormLevel } from "@perflab/contracts";
import type { CellDto } from "@/lib/dto";
import { formatInt, formatKb, formatMb, formatMs } from "@/lib/format";
import { cellLabel } from "@/lib/labels";
import { scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

/** `server`: read from the server's process, which a registered endpoint's perflab cannot read. */
type Column = { label: string; title?: string; server?: true; value: (level: TStormLevel) => string };

const pair = (p: TStormLevel["establishMs"]) => (p ? `${formatMs(p.p50)} / ${formatMs(p.p99)}` : "—");

const columns: Column[] = [
  { label: "Streams", title: "Streams the level asked for", value: (l) => formatInt(l.level) },
  {
    label: "Established",
    title: "Streams held: answered 200 text/event-stream",
    value: (l) => formatInt(l.established),
  },
  { label: "Failed", value: (l) => formatInt(l.failed) },
  {
    label: "Dropped",
    title: "Ended by the server before their hold did",
    value: (l) => formatInt(l.dropped),
  },
  { label: "Establish p50 / p99", value: (l) => pair(l.establishMs) },
  { label: "First event p50 / p99", value: (l) => pair(l.firstEventMs) },
  {
    label: "Server RSS",
    title: "Median while the level was held",
    server: true,
    value: (l) => formatMb(l.rssBytes),
  },
  {
    label: "Descriptors",
    title: "The server's open file descriptors, most while held",
    server: true,
    value: (l) => formatInt(l.fds),
  },
  {
    label: "RSS per stream",
    server: true,
    title: "(RSS at the level − idle RSS) ÷ streams established",
    value: (l) => formatKb(l.rssPerStreamBytes),
  },
];

/** What the server held before the first stream: the baseline of the per-stream figures. */
function idleText(idle: TStormFigures["idle"], unmeasured: boolean): string {
  if (unmeasured) return "not measured";
  if (!idle) return "no reading (no warm-up)";
  return `${formatMb(idle.rssBytes)} · ${idle.fds === null ? "—" : formatInt(idle.fds)} fds`;
}

type StormCell = { cell: CellDto; storm: TStormFigures };

/**
 * Every connection-storm cell of a run with its figures per level (summary.storm), one block of
 * rows a cell, so servers stormed alike read side by side; nothing for a run without one.
 */
export function StormLevelsTable({ cells }: { cells: CellDto[] }) {
  const stormed = cells.flatMap((cell): StormCell[] =>
    cell.summary?.storm ? [{ cell, storm: cell.summary.storm }] : [],
  );
  if (stormed.length === 0) return null;
  return (
    <section aria-label="Open streams">
      <h3 className="mb-3 font-semibold">Open streams by level</h3>
      <div className={scrollPanel}>
        <table className={table} data-testid="storm-levels-table">
          <thead>
            <tr>
              <th className={th}>Cell</th>
              <th className={th} title="The server before the first stream: RSS and open descriptors">
                Idle
              </th>
              {columns.map((c) => (
                <th key={c.label} className={thNum} title={c.title}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className={tbody}>{stormed.map(cellRows)}</tbody>
        </table>
      </div>
    </section>
  );
}

/** One cell's levels; its name and idle reading span them. */
function cellRows({ cell, storm }: StormCell) {
  const unmeasured = cell.unmeasured?.includes("rss") ?? false;
  return storm.levels.map((level, i) => (
    <tr key={`${cell.id} ${level.level}`} data-testid="storm-level-row">
      {i === 0 && (
        <>
          <td className={td} rowSpan={storm.levels.length}>
            {cellLabel(cell)}
          </td>
          <td className={td} rowSpan={storm.levels.length}>
            {idleText(storm.idle, unmeasured)}
          </td>
        </>
      )}
      {columns.map((c) => (
        <td key={c.label} className={tdNum}>
          {unmeasured && c.server ? "not measured" : c.value(level)}
        </td>
      ))}
    </tr>
  ));
}
