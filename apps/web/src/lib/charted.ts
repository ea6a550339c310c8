/**
 * The seconds a time-series chart draws. Points are wall-clock seconds, so the load's last second
 * (warm-up + duration from the first) holds only the fraction of a second that the load reached
 * into it, and the seconds after it only calls still finishing: drawn as rates, they would show a
 * collapse at the end of every cell that never happened. The summary counts their requests; the
 * charts leave them out.
 */
export function chartedPoints<P extends { second: number }>(
  points: P[],
  cell: { warmupSeconds: number; durationSeconds: number },
): P[] {
  const end = cell.warmupSeconds + cell.durationSeconds;
  return points.filter((p) => p.second < end);
}
