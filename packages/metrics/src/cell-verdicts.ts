import type { Drift } from "./cell-drift.ts";

type CellCpu = {
  /** % of one core, over the measured window. */
  k6CpuAvgPct: number | null;
  /** % of one core, over the measured window. */
  serverCpuAvgPct: number | null;
  /** % of the whole machine (100 = every core busy), over the measured window. */
  hostCpuAvgPct: number | null;
  cores: number;
  /**
   * Whether the machine's CPU less the server's and k6's is other work: false where the cell's own
   * processes are not all counted (the docker driver's engine, the fixtures a tool calls).
   */
  otherWorkMeasured?: boolean;
};

/**
 * Only a local cell's server, k6 and machine CPU come from one machine's /proc with nothing of the
 * cell left out: a container's CPU is the engine's figure, k6 may run elsewhere, and the fixtures
 * (product API, Redis, Postgres) that I/O tools call work for the cell without being its server.
 */
export const otherWorkMeasured = (driver: string, usesFixtures: boolean) =>
  driver === "local" && !usesFixtures;

/**
 * CPU the machine spent on anything but the server and k6 during the measured window, in % of one
 * core: other programs, and perflab's own worker, database and dashboard (a few % in all).
 */
export function otherCpuPct(input: CellCpu): number | null {
  const { k6CpuAvgPct: k6, serverCpuAvgPct: server, hostCpuAvgPct: host, cores } = input;
  if (input.otherWorkMeasured === false || k6 === null || server === null || host === null) return null;
  return Math.max(0, host * cores - server - k6);
}

/**
 * Other work took at least a quarter of the machine (half a core of two) while the cell measured:
 * the server and k6 competed with it, so the cell measured the machine's load as well.
 */
export const MACHINE_BUSY_SHARE = 0.25;
export function isMachineBusy(input: CellCpu): boolean {
  const other = otherCpuPct(input);
  return other !== null && other >= MACHINE_BUSY_SHARE * 100 * input.cores;
}

/**
 * Throughput rose at least this much (in %) from the first tenth of the measured window to the
 * last: well beyond a shared machine's second-to-second noise (about ±10 %).
 */
export const WARMING_UP_RISE_PCT = 25;

/**
 * The server was still getting faster while the cell measured (a JIT compiling its hot paths,
 * caches filling): at a closed-model level, where throughput is the server's (or k6's) pace, the
 * last tenth of the measured window made at least WARMING_UP_RISE_PCT % more calls per second than
 * the first, so the summary mixes the end of the warm-up into the result. Needs the drift of a
 * window of 20 s or more; an open-model level offers a fixed rate, so its throughput says nothing.
 */
export function isWarmingUp(input: { drift: Drift | null; closedModel: boolean }): boolean {
  const change = input.drift?.opsRps.changePct ?? null;
  return input.closedModel && change !== null && change >= WARMING_UP_RISE_PCT;
}

/**
 * The load generator, not the server, limited the cell when k6 used (nearly) all CPU it could get:
 * either most of the machine by itself, or at least as much as the server while the machine was
 * full, and full with the two of them, not with other work (that is `isMachineBusy`).
 */
export function isLoadGeneratorSaturated(input: CellCpu): boolean {
  const { k6CpuAvgPct: k6, serverCpuAvgPct: server, hostCpuAvgPct: host, cores } = input;
  if (k6 === null) return false;
  if (k6 >= 90 * cores) return true;
  return host !== null && host >= 90 && server !== null && k6 >= server && !isMachineBusy(input);
}
