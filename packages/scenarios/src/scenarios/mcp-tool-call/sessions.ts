/**
 * Sessions a cell holds open: VUs × sessions per VU, for closed-model MCP cells that keep their
 * sessions; null for a new session per call, the open model and plain HTTP routes.
 */
export function heldSessions(params: unknown, vus: number | null): number | null {
  const p = (params ?? {}) as { session?: unknown; sessionsPerVu?: unknown; tool?: unknown };
  if (vus === null || p.session === "per-call" || typeof p.tool !== "string") return null;
  return vus * (typeof p.sessionsPerVu === "number" ? p.sessionsPerVu : 1);
}

/**
 * What one held session costs the server: (its mean RSS over the measured window − its RSS when
 * idle, before the load) ÷ sessions held. Only for workloads that hold sessions (sessions per VU
 * or think time set): with every VU calling back to back, RSS is mostly the load's, not the
 * sessions'. Null when a number is missing.
 */
export function rssPerSession(cell: {
  params: unknown;
  vus: number | null;
  idleRssBytes: number | null;
  rssAvgBytes: number | null;
}): number | null {
  const p = (cell.params ?? {}) as { sessionsPerVu?: unknown; thinkMs?: unknown };
  if (p.sessionsPerVu === undefined && p.thinkMs === undefined) return null;
  const sessions = heldSessions(cell.params, cell.vus);
  if (!sessions || cell.idleRssBytes === null || cell.rssAvgBytes === null) return null;
  return Math.round((cell.rssAvgBytes - cell.idleRssBytes) / sessions);
}
