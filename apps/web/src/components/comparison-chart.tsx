import { useId } from "react";
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type SeriesLook, swatchStyle } from "@/lib/colours";
import { groupsAtLevel, type Stat, type Workload } from "@/lib/compare";
import { levelHeading, type Metric } from "./comparison-metrics";
import { barLook, LookPatterns } from "./look-patterns";
import { axisStyle, axisTick, valueAxis } from "./series-chart";

type Row = { level: string; stats: Record<string, Stat | null>; rounds: Record<string, number> };

function rowsFor(workload: Workload, metric: Metric): Row[] {
  return workload.levels.map((level) => {
    const groups = groupsAtLevel(workload.groups, level);
    return {
      level: levelHeading(level, workload.scenario),
      stats: Object.fromEntries(groups.map((g) => [g.serverName, metric.pick(g)])),
      rounds: Object.fromEntries(groups.map((g) => [g.serverName, g.rounds])),
    };
  });
}

/** A number column of the tooltip. */
const tooltipCell = "py-0.5 pl-3 text-right tabular-nums";

/** The whisker spans the rounds' min–max; a single round has none. */
const whisker = (s: Stat | null | undefined): [number, number] | undefined =>
  s && s.n > 1 ? [s.mean - s.min, s.max - s.mean] : undefined;

/** One server's line of the tooltip: mean, and with several rounds the sd, min–max and count. */
function TooltipRow({
  server,
  s,
  look,
  metric,
  spread,
}: {
  server: string;
  s: Stat;
  look: SeriesLook;
  metric: Metric;
  spread: boolean;
}) {
  return (
    <tr>
      <td className="py-0.5">
        <span className="mr-1.5 inline-block size-2 rounded-sm" style={swatchStyle(look)} />
        {server}
      </td>
      <td className={`${tooltipCell} font-medium text-zinc-900 dark:text-zinc-100`}>
        {metric.format(s.mean)}
      </td>
      {spread && (
        <>
          <td className={tooltipCell}>{s.n > 1 ? metric.format(s.sd) : "—"}</td>
          <td className={tooltipCell}>{s.n > 1 ? `${metric.format(s.min)}–${metric.format(s.max)}` : "—"}</td>
          <td className={tooltipCell}>{s.n}</td>
        </>
      )}
    </tr>
  );
}

function CompareTooltip({
  active,
  payload,
  label,
  servers,
  looks,
  metric,
  scenario,
}: {
  active?: boolean;
  payload?: readonly { payload?: Row }[];
  label?: string | number;
  servers: string[];
  looks: Map<string, SeriesLook>;
  metric: Metric;
  scenario: string;
}) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  const shown = servers.filter((server) => row.stats[server]);
  const spread = shown.some((server) => row.stats[server]!.n > 1);
  return (
    <div
      className="whitespace-nowrap rounded-md border px-3 py-2 text-xs shadow-sm"
      style={{ background: "var(--chart-tooltip-bg)", borderColor: "var(--chart-tooltip-border)" }}
    >
      <table className="text-zinc-700 dark:text-zinc-300">
        <thead>
          <tr className="text-zinc-500 dark:text-zinc-400">
            <th className="pb-1 text-left font-medium text-zinc-900 dark:text-zinc-100">{label}</th>
            <th className={`${tooltipCell} pb-1 font-normal`}>{metric.short(scenario)}</th>
            {spread && (
              <>
                <th className={`${tooltipCell} pb-1 font-normal`}>± sd</th>
                <th className={`${tooltipCell} pb-1 font-normal`}>min–max</th>
                <th className={`${tooltipCell} pb-1 font-normal`}>rounds</th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {shown.map((server) => (
            <TooltipRow
              key={server}
              server={server}
              s={row.stats[server]!}
              look={looks.get(server)!}
              metric={metric}
              spread={spread}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a comparison chart shows, for a screen reader: each level's bars, "10 VUs: go 1,234.5, node 980.1". */
function compareChartLabel(workload: Workload, metric: Metric, rows: Row[], servers: string[]): string {
  const levels = rows.map((row) => {
    const bars = servers.flatMap((server) => {
      const s = row.stats[server];
      return s ? [`${server} ${metric.format(s.mean)}`] : [];
    });
    return `${row.level}: ${bars.join(", ")}`;
  });
  return `${metric.title(workload.scenario)} (${metric.unit(workload.scenario)}), mean over rounds by load level. ${levels.join(". ")}`;
}

export function CompareChart({
  workload,
  servers,
  looks,
  metric,
}: {
  workload: Workload;
  servers: string[];
  /** Each server's colour on every chart (lib/colours), fainter for a server's repeat (another run). */
  looks: Map<string, SeriesLook>;
  metric: Metric;
}) {
  const rows = rowsFor(workload, metric);
  const bars = workload.servers;
  const patterns = useId().replace(/[^a-zA-Z0-9-]/g, "");
  return (
    <figure
      data-testid={`compare-chart-${metric.id}`}
      data-levels={rows.length}
      data-servers={bars.length}
      className="min-w-0"
    >
      <figcaption className="mb-2 text-sm font-medium">
        {metric.title(workload.scenario)}{" "}
        <span className="font-normal text-zinc-500 dark:text-zinc-400">
          ({metric.unit(workload.scenario)})
        </span>
      </figcaption>
      <div
        className="h-60 text-zinc-500 dark:text-zinc-400"
        role="img"
        aria-label={compareChartLabel(workload, metric, rows, bars)}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={rows}
            margin={{ top: 8, right: 8, bottom: 4, left: 0 }}
            barCategoryGap="22%"
            // A picture of the numbers (named above, and in the table below), not a control.
            accessibilityLayer={false}
          >
            <LookPatterns prefix={patterns} looks={looks.values()} />
            <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
            <XAxis dataKey="level" tick={axisTick(12)} {...axisStyle} />
            <YAxis
              tick={axisTick(11)}
              {...axisStyle}
              width={52}
              // The whiskers' tops too: a bar's max round stays on the axis.
              {...valueAxis(
                Math.max(0, ...rows.flatMap((row) => Object.values(row.stats).map((s) => s?.max ?? 0))),
              )}
            />
            <Tooltip
              cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
              content={
                <CompareTooltip
                  servers={servers}
                  looks={looks}
                  metric={metric}
                  scenario={workload.scenario}
                />
              }
            />
            {bars.map((server) => (
              <Bar
                key={server}
                name={server}
                dataKey={(row: Row) => row.stats[server]?.mean ?? null}
                {...barLook(patterns, looks.get(server)!)}
                radius={[3, 3, 0, 0]}
                maxBarSize={48}
                isAnimationActive={false}
              >
                <ErrorBar
                  dataKey={(row: Row) => whisker(row.stats[server])}
                  stroke="currentColor"
                  strokeWidth={1.25}
                  width={4}
                  isAnimationActive={false}
                />
              </Bar>
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
