"use client";

import { useRouter } from "next/navigation";
import { useEffect, useReducer, useRef, useState } from "react";
import { isComparable } from "@/lib/compare";
import { type CellDto, type RunDto, terminalCellStatuses, terminalRunStatuses } from "@/lib/dto";
import { succeededCells } from "@/lib/progress";
import { defaultChartCell, type RunAction, reduceRunState, runProgress } from "@/lib/run-state";
import { CancelRun } from "./cancel-run";
import { CellTable } from "./cell-table";
import { ComparisonSection } from "./comparison";
import { ExportCsv } from "./export-csv";
import { LiveCharts } from "./live-charts";
import { OverlayCharts } from "./overlay-charts";
import { type Connection, RunHeader } from "./run-header";
import { ShareReport } from "./share-report";
import { WorkersNotice } from "./workers-notice";

/**
 * The live part of a run page. It follows the run's server-sent events (never polls) and asks the
 * server component for fresh data when a cell or the run finishes, so summaries appear.
 */
export function RunView({
  run,
  cells,
  catalog,
  signedIn = false,
}: {
  run: RunDto;
  cells: CellDto[];
  /** The catalog's server names in its order: what the charts' colours follow (lib/colours). */
  catalog: string[];
  /** The dashboard is signed in with a token (private reports need one). */
  signedIn?: boolean;
}) {
  const router = useRouter();
  const [state, dispatch] = useReducer(reduceRunState, { run, cells, points: {} });
  const [picked, setPicked] = useState<string | null>(null);
  const [connection, setConnection] = useState<Connection>("connecting");
  const renderedStatus = useRef(run.status);

  // router.refresh() hands in new props; fold them in without dropping streamed points.
  useEffect(() => {
    renderedStatus.current = run.status;
    dispatch({ type: "props", run, cells });
  }, [run, cells]);

  // EventSource retries a dropped stream by itself, but gives up for good on an error answer (the
  // events route answers 503 while Redis is down): then open a new one, backing off to 30 s.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const source = new EventSource(`/api/v1/runs/${run.id}/events`);
    let retry: ReturnType<typeof setTimeout> | undefined;
    const close = () => {
      source.close();
      setConnection("closed");
    };
    source.onopen = () => setConnection("live");
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        setConnection("reconnecting");
        return;
      }
      setConnection("unavailable");
      retry = setTimeout(() => setAttempt((n) => n + 1), Math.min(30_000, 2_000 * 2 ** Math.min(attempt, 4)));
    };
    source.onmessage = (message) => {
      const event = JSON.parse(message.data) as RunAction;
      dispatch(event);
      if (event.type === "snapshot" && terminalRunStatuses.includes(event.run.status)) {
        close();
        // The run ended between the page render and this stream: show its final state.
        if (renderedStatus.current !== event.run.status) router.refresh();
      } else if (event.type === "run" && terminalRunStatuses.includes(event.status)) {
        close();
        router.refresh();
      } else if (event.type === "cell" && terminalCellStatuses.includes(event.status)) {
        router.refresh();
      }
    };
    return () => {
      clearTimeout(retry);
      source.close();
    };
  }, [run.id, router, attempt]);

  const chartCellId = picked ?? defaultChartCell(state);
  const chartCell = state.cells.find((c) => c.id === chartCellId);

  return (
    <div className="space-y-6">
      <RunHeader
        run={state.run}
        connection={connection}
        progress={runProgress(state)}
        succeeded={succeededCells(state.cells)}
        actions={
          <div className="flex flex-wrap items-start gap-2">
            {terminalRunStatuses.includes(state.run.status) ? (
              <ShareReport runId={state.run.id} signedIn={signedIn} />
            ) : (
              <CancelRun runId={state.run.id} />
            )}
            <ExportCsv href={`/api/v1/runs/${state.run.id}/cells.csv`} />
          </div>
        }
      />
      {/* A run that waits for a worker that is not running says so, instead of looking stuck. */}
      {!terminalRunStatuses.includes(state.run.status) && <WorkersNotice />}
      {isComparable(state.cells) && (
        <ComparisonSection cells={state.cells} serverOrder={state.run.spec.servers ?? []} catalog={catalog} />
      )}
      <section aria-label="Cells">
        <h2 className="mb-3 text-lg font-semibold">Cells</h2>
        <CellTable
          cells={state.cells}
          requestedLimits={state.run.spec.limits}
          selectedId={chartCellId}
          onSelect={setPicked}
        />
      </section>
      <OverlayCharts
        cells={state.cells}
        points={state.points}
        serverOrder={state.run.spec.servers ?? []}
        catalog={catalog}
      />
      {chartCell && <LiveCharts cell={chartCell} points={state.points[chartCell.id] ?? []} />}
    </div>
  );
}
