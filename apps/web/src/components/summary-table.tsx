import { heldSessions, rssPerSession } from "@perflab/contracts";
import type { CellDto, CellSummaryDto } from "@/lib/dto";
import { formatInt, formatKb, formatMb, formatMs, formatPct, formatRate, formatRatio } from "@/lib/format";
import { type CellNumbering, cellLabel, levelLabel, operationWord, rateWord } from "@/lib/labels";
import { scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

type Column = { label: string; title?: string; value: (s: CellSummaryDto, cell: CellDto) => string };

/** A registered endpoint's process is not perflab's: its CPU and RSS are not measured, not zero. */
const unmeasured = (cell: CellDto, metric: "cpu" | "rss") =>
  cell.unmeasured?.includes(metric) ? "not measured" : null;

const columns: Column[] = [
  { label: "Requests", value: (s) => formatInt(s.requests) },
  { label: "Errors", value: (s) => formatInt(s.errors) },
  { label: "HTTP RPS", value: (s) => formatRate(s.httpRps) },
  {
    label: "Ops/s",
    title: "Operations per second: MCP tool calls, or the requests of an HTTP route scenario",
    value: (s) => formatRate(s.opsRps),
  },
  {
    label: "Req/op",
    title: "HTTP requests per operation, protocol overhead included",
    value: (s) => formatRatio(s.requestsPerOp),
  },
  { label: "Avg", value: (s) => formatMs(s.latency.avgMs) },
  { label: "p50", value: (s) => formatMs(s.latency.p50) },
  { label: "p90", value: (s) => formatMs(s.latency.p90) },
  { label: "p95", value: (s) => formatMs(s.latency.p95) },
  { label: "p99", value: (s) => formatMs(s.latency.p99) },
  { label: "p99.9", value: (s) => formatMs(s.latency.p999) },
  { label: "Max", value: (s) => formatMs(s.latency.maxMs) },
  { label: "CPU avg", value: (s, cell) => unmeasured(cell, "cpu") ?? formatPct(s.cpuAvgPct) },
  { label: "CPU peak", value: (s, cell) => unmeasured(cell, "cpu") ?? formatPct(s.cpuPeakPct) },
  { label: "RSS avg", value: (s, cell) => unmeasured(cell, "rss") ?? formatMb(s.rssAvgBytes) },
  { label: "RSS peak", value: (s, cell) => unmeasured(cell, "rss") ?? formatMb(s.rssPeakBytes) },
  { label: "Cold start", value: (_s, cell) => formatMs(cell.coldStartMs) },
  { label: "k6 CPU avg", value: (s) => formatPct(s.k6CpuAvgPct) },
  { label: "k6 CPU peak", value: (s) => formatPct(s.k6CpuPeakPct) },
];

const signedPct = (value: number | null | undefined) =>
  value === null || value === undefined ? "—" : `${value >= 0 ? "+" : ""}${value.toFixed(1)} %`;

/**
 * Shown when some cell measured 20 s or more: its last tenth against its first — p99 creep and
 * memory growth (the RSS trend over the whole window, per hour), what a soak is run for.
 */
const driftColumns: Column[] = [
  {
    label: "p99 drift",
    title: "p99 of the measured window's last tenth against its first (merged histograms)",
    value: (s) => signedPct(s.drift?.p99Ms.changePct),
  },
  {
    label: "RSS trend",
    title: "Least-squares trend of server RSS over the measured window, per hour",
    value: (s) => {
      const slope = s.drift?.rssBytes.slopePerHour;
      return slope === null || slope === undefined ? "—" : `${slope >= 0 ? "+" : ""}${formatMb(slope)}/h`;
    },
  },
];

/**
 * Shown when some cell held sessions (sessions per VU or think time): what one open session costs
 * the server. Computed here from the cell, so reports frozen before it existed show it too.
 */
const sessionColumns: Column[] = [
  {
    label: "Sessions",
    title: "MCP sessions held open: VUs × sessions per VU",
    value: (_s, cell) => formatInt(heldSessions(cell.params, cell.vus)),
  },
  {
    label: "RSS / session",
    title: "(mean server RSS of the measured window − its idle RSS before the load) ÷ sessions held",
    value: (s, cell) => formatKb(sessionCost(s, cell)),
  },
];

const sessionCost = (s: CellSummaryDto, cell: CellDto) =>
  rssPerSession({
    params: cell.params,
    vus: cell.vus,
    idleRssBytes: cell.idleRssBytes,
    rssAvgBytes: s.rssAvgBytes,
  });

/** Shown when some cell ran the open model, where a server that cannot keep the rate loses operations. */
const droppedColumn: Column = {
  label: "Dropped",
  title:
    "Open model: what the rate starts (a tool call, a request of an HTTP route, a session of a tool mix) that k6 could not start because all its VUs were busy (measured window only)",
  value: (s) => (s.droppedCalls === null ? "—" : formatInt(s.droppedCalls)),
};

/** Results over each cell's measured window (warm-up excluded). */
export function SummaryTable({ cells }: { cells: (CellDto & CellNumbering)[] }) {
  const done = cells.filter((c): c is CellDto & { summary: CellSummaryDto } => c.summary !== null);
  // Summaries frozen in reports before the open model existed have no droppedCalls at all.
  const shown = [
    ...columns,
    ...(done.some((c) => (c.summary.droppedCalls ?? null) !== null) ? [droppedColumn] : []),
    ...(done.some((c) => (c.summary.drift ?? null) !== null) ? driftColumns : []),
    ...(done.some((c) => sessionCost(c.summary, c) !== null) ? sessionColumns : []),
  ];
  return (
    <div className={scrollPanel}>
      <table className={table} data-testid="summary-table">
        <thead>
          <tr>
            <th className={th}>Cell</th>
            {shown.map((column) => (
              <th key={column.label} className={thNum} title={column.title}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={tbody}>
          {done.map((cell) => (
            <tr key={cell.id} data-testid={`summary-row-${cell.index}`}>
              <td className={`${td} font-medium`}>
                {cellLabel(cell)}
                {cell.k6Saturated && (
                  <span
                    data-testid={`saturated-${cell.index}`}
                    title="k6 used nearly all the CPU it could get: the load generator, not the server, may have limited this cell."
                    className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-300 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-800"
                  >
                    load generator saturated
                  </span>
                )}
                {cell.machineBusy === true && (
                  <span
                    data-testid={`machine-busy-${cell.index}`}
                    title={`Other work on the machine used ${formatPct(cell.otherCpuPct)} of a core (100 % = one core) while this cell measured, a quarter of the machine or more: the server and k6 competed with it. Run the cell again on a quiet machine.`}
                    className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-300 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-800"
                  >
                    machine busy
                  </span>
                )}
                {cell.warmingUp === true && (
                  <span
                    data-testid={`warming-up-${cell.index}`}
                    title={`The server was still getting faster while this cell measured: the last tenth of the measured window made ${formatPct(cell.summary.drift?.opsRps.changePct ?? null)} more ${operationWord(cell.scenario, 2)} per second than the first (a JIT compiling its hot paths, caches filling), so the summary mixes the end of its warm-up into the result. Queue it again with a longer warm-up.`}
                    className="ml-2 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-300 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-800"
                  >
                    still warming up
                  </span>
                )}
                {(cell.summary.droppedCalls ?? 0) > 0 && (
                  <span
                    data-testid={`dropped-${cell.index}`}
                    title={`The rate of ${levelLabel(cell) ?? `the ${operationWord(cell.scenario)}/s`} was not kept: k6 found no free VU for ${formatInt(cell.summary.droppedCalls)} ${rateWord(cell.scenario, cell.summary.droppedCalls ?? 0)} and dropped them during the measured window (warm-up excluded; raise maxVus if the server was not the cause).`}
                    className="ml-2 rounded-full bg-rose-100 px-2 py-0.5 text-xs font-medium text-rose-800 ring-1 ring-inset ring-rose-300 dark:bg-rose-950 dark:text-rose-300 dark:ring-rose-800"
                  >
                    {formatInt(cell.summary.droppedCalls)}{" "}
                    {rateWord(cell.scenario, cell.summary.droppedCalls ?? 0)} dropped
                  </span>
                )}
              </td>
              {shown.map((column) => (
                <td key={column.label} className={tdNum}>
                  {column.value(cell.summary, cell)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
