export function ProgressBar({
  done,
  total,
  failed = 0,
  progress = done,
}: {
  done: number;
  total: number;
  failed?: number;
  /** Cells done plus the running cells' elapsed share; the bar shows it, the label counts cells. */
  progress?: number;
}) {
  const pct = total > 0 ? Math.min(100, (progress / total) * 100) : 0;
  return (
    <div className="flex items-center gap-2">
      <div
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={Math.round(progress * 100) / 100}
        aria-label="Cells done"
        className="h-2 w-full min-w-16 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
      >
        <div
          className={`h-full rounded-full transition-[width] ${failed > 0 ? "bg-amber-500" : "bg-sky-500"}`}
          style={{ width: `${pct}%` }}
        />
      </div>
      <span className="shrink-0 text-xs tabular-nums text-zinc-500 dark:text-zinc-400">
        {done}/{total}
      </span>
    </div>
  );
}
