import type { RunStatus } from "@/lib/dto";
import { type ProgressTone, progressView } from "@/lib/progress";

const toneClass: Record<ProgressTone, string> = {
  sky: "bg-sky-500",
  amber: "bg-amber-500",
  rose: "bg-rose-500",
  zinc: "bg-zinc-400 dark:bg-zinc-500",
};

/** A run's cells as a bar: done while it runs, with a result once it has ended (see progressView). */
export function ProgressBar({
  status,
  done,
  total,
  failed = 0,
  succeeded,
  progress = done,
}: {
  status: RunStatus;
  done: number;
  total: number;
  failed?: number;
  /** Cells that ended with a result. */
  succeeded: number;
  /** Cells done plus the running cells' elapsed share; the bar shows it, the label counts cells. */
  progress?: number;
}) {
  const view = progressView({ status, total, done, failed, succeeded, progress });
  const pct = total > 0 ? Math.min(100, (view.value / total) * 100) : 0;
  return (
    <div className="flex items-center gap-2" title={view.detail} data-tone={view.tone}>
      <div
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={Math.round(view.value * 100) / 100}
        aria-valuetext={view.detail}
        aria-label={view.name}
        className="h-2 w-full min-w-16 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-full rounded-full transition-[width] ${toneClass[view.tone]}`}
          style={{ width: `${pct}%` }}
        />
      </div>
      <span className="shrink-0 text-xs tabular-nums text-zinc-500 dark:text-zinc-400">{view.label}</span>
    </div>
  );
}
