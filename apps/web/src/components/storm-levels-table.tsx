import type { TStormFigures, TStormLevel } from "@perflab/contracts";
import type { CellDto } from "@/lib/dto";
import { formatInt, formatKb, formatMb, formatMs } from "@/lib/format";
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
  if (unmeasured) return "the server's RSS and descriptors are not measured (a registered endpoint)";
  if (!idle) return "no reading before the first level: no per-stream figures (give the cell a warm-up)";
  return `idle ${formatMb(idle.rssBytes)}, ${idle.fds === null ? "descriptors not measured" : `${formatInt(idle.fds)} descriptors`}`;
}

/** A connection-storm cell's figures per level (summary.storm), beside its requests and operations. */
export function StormLevelsTable({ cell, storm }: { cell: CellDto; storm: TStormFigures }) {
  const unmeasured = cell.unmeasured?.includes("rss") ?? false;
  return (
    <section aria-label="Open streams">
      <h2 className="mb-1 text-lg font-semibold">Open streams by level: {cell.serverName}</h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400" data-testid="storm-idle">
        {idleText(storm.idle, unmeasured)}
      </p>
      <div className={scrollPanel}>
        <table className={table} data-testid="storm-levels-table">
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={c.label} className={i === 0 ? th : thNum} title={c.title}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className={tbody}>
            {storm.levels.map((level) => (
              <tr key={level.level} data-testid="storm-level-row">
                {columns.map((c, i) => (
                  <td key={c.label} className={i === 0 ? td : tdNum}>
                    {unmeasured && c.server ? "not measured" : c.value(level)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
