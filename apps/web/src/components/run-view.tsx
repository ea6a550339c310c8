"use client";

import { useRouter } from "next/navigation";
import { useEffect, useReducer, useRef, useState } from "react";
import { isComparable } from "@/lib/compare";
import { type CellDto, type RunDto, terminalCellStatuses, terminalRunStatuses } from "@/lib/dto";
import { succeededCells } from "@/lib/progress";
import { defaultChartCell, type RunAction, reduceRunState, runProgress } from "@/lib/run-state";
import { AdaptiveRounds } from "./adaptive-rounds";
import { CancelRun } from "./cancel-run";
import { CellTable } from "./cell-table";
import { ComparisonSection } from "./comparison";
import { ExportCsv } from "./export-csv";
import { LiveCharts } from "./live-charts";
import { mixedOperations } from "./mixed-operations";
import { OperationsTable } from "./operations-table";
import { OverlayCharts } from "./overlay-charts";
import { type Connection, RunHeader } from "./run-header";
import { ShareReport } from "./share-report";
import { StudyBesideSection } from "./study-beside";
import { WorkersNotice } from "./workers-notice";

/** At most one refresh per this many ms while cells end. */
const REFRESH_EVERY_MS = 500;

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

  // A cell's end asks for fresh props; refreshes asked for within REFRESH_EVERY_MS are one, since
  // cancelling a run ends every queued cell at once. The run's end refreshes at once instead.
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  // EventSource retries a dropped stream by itself, but gives up for good on an error answer (the
  // events route answers 503 while Redis is down): then open a new one, backing off to 30 s. The
  // backoff starts over once a stream opens; a deleted run (404) is not retried.
  useEffect(() => {
    const url = `/api/v1/runs/${run.id}/events`;
    let source: EventSource;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let disposed = false;
    let ended = false;
    const refreshSoon = () => {
      if (refreshTimer.current !== undefined) return;
      refreshTimer.current = setTimeout(() => {
        refreshTimer.current = undefined;
        router.refresh();
      }, REFRESH_EVERY_MS);
    };
    const refreshNow = () => {
      clearTimeout(refreshTimer.current);
      refreshTimer.current = undefined;
      router.refresh();
    };
    const close = () => {
      ended = true;
      source.close();
      setConnection("closed");
    };
    const open = () => {
      source = new EventSource(url);
      source.onopen = () => {
        failures = 0;
        setConnection("live");
      };
      source.onerror = () => {
        if (source.readyState !== EventSource.CLOSED) {
          setConnection("reconnecting");
          return;
        }
        setConnection("unavailable");
        const delay = Math.min(30_000, 2_000 * 2 ** Math.min(failures, 4));
        failures += 1;
        // EventSource does not tell which error answer it got: ask the route once.
        fetch(url, { method: "HEAD" })
          .then((response) => response.status === 404)
          .catch(() => false)
          .then((deleted) => {
            if (disposed) return;
            if (deleted) setConnection("deleted");
            else retry = setTimeout(open, delay);
          });
      };
      source.onmessage = (message) => {
        if (ended) return;
        failures = 0;
        const event = JSON.parse(message.data) as RunAction;
        dispatch(event);
        if (event.type === "snapshot" && terminalRunStatuses.includes(event.run.status)) {
          close();
          // The run ended between the page render and this stream: show its final state.
          if (renderedStatus.current !== event.run.status) refreshNow();
        } else if (event.type === "run" && terminalRunStatuses.includes(event.status)) {
          close();
          refreshNow();
        } else if (event.type === "cell" && terminalCellStatuses.includes(event.status)) {
          refreshSoon();
        }
      };
    };
    open();
    return () => {
      disposed = true;
      clearTimeout(retry);
      source.close();
    };
  }, [run.id, router]);

  const chartCellId = picked ?? defaultChartCell(state);
  const chartCell = state.cells.find((c) => c.id === chartCellId);
  const operations = chartCell ? mixedOperations(chartCell) : null;

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
      <AdaptiveRounds run={state.run} />
      <StudyBesideSection spec={state.run.spec} cells={state.cells} />
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
      {chartCell && operations && <OperationsTable cell={chartCell} operations={operations} />}
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
