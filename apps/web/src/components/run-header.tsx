import { roundsLabel } from "@perflab/contracts";
import type { RunDto } from "@/lib/dto";
import { formatDateTime, formatDuration } from "@/lib/format";
import { levelLabel, sharedScenario, vusLabel, workloadName } from "@/lib/labels";
import { ProgressBar } from "./progress-bar";
import { StatusBadge } from "./status-badge";
import { panel } from "./ui";
import { UploadSource } from "./upload-source";

export type Connection = "connecting" | "live" | "reconnecting" | "unavailable" | "deleted" | "closed";

const connectionText: Record<Connection, string> = {
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  unavailable: "live updates unavailable; retrying…",
  deleted: "this run was deleted; no more live updates",
  closed: "",
};

function SpecItem({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5 text-sm">{children}</dd>
    </div>
  );
}

export function RunHeader({
  run,
  connection,
  progress,
  succeeded,
  actions,
}: {
  run: RunDto;
  connection: Connection;
  /** Cells that ended with a result: what the bar counts once the run has ended. */
  succeeded: number;
  /** Cells done plus the running cells' elapsed share (see runProgress). */
  progress?: number;
  /** Buttons for the run (Share); none on a frozen report. */
  actions?: React.ReactNode;
}) {
  const { spec } = run;
  const tools =
    spec.scenarios?.map((s) => `${s.id} (${workloadName({ scenario: s.id, params: s.params })})`) ?? [];
  // Open-model levels in the scenario's words ("500 requests/s" of an HTTP route) when it runs one.
  const scenario = sharedScenario((spec.scenarios ?? []).map((s) => ({ scenario: s.id })));
  return (
    <header className={`${panel} space-y-5 p-5`}>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight" data-testid="run-name">
          {run.name}
        </h1>
        <StatusBadge status={run.status} testId="run-status" />
        {connectionText[connection] && (
          <span className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="connection">
            {connectionText[connection]}
          </span>
        )}
        <span className="ml-auto text-sm text-zinc-500 dark:text-zinc-400">
          {formatDateTime(run.createdAt)}
        </span>
      </div>
      <div data-testid="run-progress" className="max-w-md">
        <ProgressBar
          status={run.status}
          succeeded={succeeded}
          done={run.cellsDone}
          total={run.cellsTotal}
          failed={run.cellsFailed}
          progress={progress ?? run.cellsDone}
        />
      </div>
      {actions}
      {run.status === "ingesting" && (
        <p className="text-sm text-zinc-600 dark:text-zinc-300" data-testid="run-ingesting">
          Uploaded k6 output: a worker is reading it into this run&apos;s cell, summary and charts. The page
          updates when it is done.
        </p>
      )}
      {run.error && <p className="text-sm text-rose-600 dark:text-rose-400">{run.error}</p>}
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4 lg:grid-cols-8" data-testid="run-spec">
        <SpecItem label="Servers">{spec.servers?.join(", ")}</SpecItem>
        <SpecItem label="Scenarios">{tools.join(", ")}</SpecItem>
        <SpecItem label="Load">
          {spec.loadLevels
            ?.map((l) =>
              "rate" in l
                ? `${levelLabel({ vus: null, rate: l.rate, scenario })} (≤ ${vusLabel(l.maxVus)})`
                : levelLabel({ vus: l.vus }),
            )
            .join(", ")}
        </SpecItem>
        <SpecItem label="Duration">{formatDuration(spec.durationSec ?? 0)}</SpecItem>
        <SpecItem label="Warm-up">{formatDuration(spec.warmupSec ?? 0)}</SpecItem>
        <SpecItem label="Rounds">
          {spec.adaptive
            ? `${roundsLabel({ min: Number(spec.rounds), max: Number(spec.adaptive.maxRounds) })}, adaptive`
            : spec.rounds}
        </SpecItem>
        <SpecItem label="Driver">{spec.driver}</SpecItem>
        {run.token !== undefined && (
          <SpecItem label={run.source === "api" ? "Sent by" : "Queued by"}>
            <span data-testid="run-token">
              {run.token
                ? run.token.name
                : run.source === "api"
                  ? "the API, no token"
                  : "the dashboard, no token"}
            </span>
          </SpecItem>
        )}
      </dl>
      {run.source === "api" && <UploadSource upload={(spec as { upload?: unknown }).upload} />}
      <details className="text-sm">
        <summary className="cursor-pointer text-zinc-500 dark:text-zinc-400">Full spec</summary>
        <pre className="mt-2 overflow-x-auto rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-950">
          {JSON.stringify(spec, null, 2)}
        </pre>
      </details>
    </header>
  );
}
