// Only the runs list has a loading boundary: above /runs/[id] it would start streaming with 200
// before the page can answer 404 for an unknown run.
export default function Loading() {
  return (
    <div
      className="animate-pulse space-y-4"
      role="status"
      aria-busy="true"
      aria-label="Loading"
      data-testid="loading"
    >
      <div className="h-8 w-56 rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-4 w-96 max-w-full rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-64 rounded-lg bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
