"use client";

import { chartedPoints } from "@/lib/charted";
import type { CellDto, PointDto } from "@/lib/dto";
import { bytesToMb } from "@/lib/format";
import { cellLabel } from "@/lib/labels";
import { waitingMessage } from "@/lib/waiting";
import { type ChartRow, SeriesChart } from "./series-chart";
import { StatusBadge } from "./status-badge";

const colors = {
  rps: "#0ea5e9",
  p50: "#10b981",
  p95: "#f59e0b",
  p99: "#f43f5e",
  cpu: "#8b5cf6",
  k6: "#64748b",
  rss: "#0ea5e9",
  heap: "#f59e0b",
  gc: "#f43f5e",
};

function toRows(points: PointDto[]): ChartRow[] {
  return points.map((p) => ({
    second: p.second,
    rps: p.rps,
    p50: p.p50,
    p95: p.p95,
    p99: p.p99,
    cpu: p.cpuPct,
    k6: p.k6CpuPct,
    rss: bytesToMb(p.rssBytes),
    heap: bytesToMb(p.heapUsedBytes),
    gc: p.gcPauseMaxMs ?? null,
  }));
}

/** The per-second charts of one cell, fed by the run's event stream. */
export function LiveCharts({ cell, points }: { cell: CellDto; points: PointDto[] }) {
  const rows = toRows(chartedPoints(points, cell));
  const lastSecond = rows[rows.length - 1]?.second ?? 0;
  const common = {
    rows,
    warmupSeconds: cell.warmupSeconds,
    endSecond: Math.max(cell.warmupSeconds + cell.durationSeconds, lastSecond),
  };
  return (
    <section aria-label="Live metrics" data-testid="live-charts">
      <h2 className="mb-3 text-lg font-semibold">
        Metrics{" "}
        <span className="text-sm font-normal text-zinc-500 dark:text-zinc-400">{cellLabel(cell)}</span>{" "}
        <StatusBadge status={cell.status} testId="charts-cell-status" />
      </h2>
      {rows.length === 0 && (
        <p className="mb-3 text-sm text-zinc-500 dark:text-zinc-400" data-testid="charts-waiting">
          {waitingMessage(cell)}
        </p>
      )}
      <div className="grid gap-6 lg:grid-cols-2">
        <SeriesChart
          {...common}
          testId="live-chart-rps"
          title="Throughput"
          unit="HTTP req/s"
          valueUnit="req/s"
          series={[{ key: "rps", name: "RPS", color: colors.rps }]}
        />
        <SeriesChart
          {...common}
          testId="live-chart-latency"
          title="Latency"
          unit="ms"
          valueUnit="ms"
          series={[
            { key: "p50", name: "p50", color: colors.p50 },
            { key: "p95", name: "p95", color: colors.p95 },
            { key: "p99", name: "p99", color: colors.p99 },
          ]}
        />
        <SeriesChart
          {...common}
          testId="live-chart-cpu"
          title="CPU"
          unit="%, 100 = one core"
          valueUnit="%"
          series={[
            { key: "cpu", name: "server", color: colors.cpu },
            { key: "k6", name: "k6", color: colors.k6 },
          ]}
        />
        <SeriesChart
          {...common}
          testId="live-chart-rss"
          title="Server memory"
          unit="RSS and runtime heap in use, MB"
          valueUnit="MB"
          // The runtime's own heap (/debug/runtime) beside what the process holds from the OS.
          series={[
            { key: "rss", name: "RSS", color: colors.rss },
            { key: "heap", name: "heap in use", color: colors.heap },
          ]}
        />
        <SeriesChart
          {...common}
          testId="live-chart-gc"
          title="GC pauses"
          unit="longest single pause of each second, ms"
          valueUnit="ms"
          series={[{ key: "gc", name: "longest pause", color: colors.gc }]}
        />
      </div>
    </section>
  );
}
