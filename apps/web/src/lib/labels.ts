import { rateWord, scenarioOrDefault, workloadName as sharedWorkloadName } from "@perflab/contracts";
import type { CellDto } from "./dto";
import { formatInt } from "./format";

/** The tool a cell calls, when its scenario names one. */
export function cellTool(cell: Pick<CellDto, "params">): string | null {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" && tool ? tool : null;
}

/** The route a cell requests (the http-route scenario), as its template: "/rest/users/{id}". */
export function cellRoute(cell: Pick<CellDto, "params">): string | null {
  const route = (cell.params as { route?: unknown } | null)?.route;
  return typeof route === "string" && route ? route : null;
}

/** What a scenario's operations (ops, ops/s) are, for headings and tooltips: "MCP tool calls". */
export function operationsName(scenario: string): string {
  return scenarioOrDefault(scenario).operations.name;
}

/**
 * One operation of a scenario in running text, as the run form says it: "request" (a plain HTTP
 * route), "call" (an MCP tool call, also when the scenario is unknown); plural unless `count` is 1.
 */
export function operationWord(scenario: string | undefined, count = 2): string {
  const { word } = scenarioOrDefault(scenario).operations;
  return count === 1 ? word : `${word}s`;
}

/** What a scenario's open-model rate starts ("calls", "sessions"): one place, in the scenarios' catalog. */
export { rateWord };

/** "requests" → "Requests", for a heading. */
export const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** The one scenario all these cells run, else undefined (a run of several, or none). */
export function sharedScenario(cells: readonly { scenario: string }[]): string | undefined {
  const scenarios = new Set(cells.map((c) => c.scenario));
  return scenarios.size === 1 ? [...scenarios][0] : undefined;
}

/** "per-call" when each call opened its own MCP session; null for the default, one per VU. */
export function cellSession(cell: Pick<CellDto, "params">): "per-call" | null {
  return (cell.params as { session?: unknown } | null)?.session === "per-call" ? "per-call" : null;
}

/** What a cell's scenario does, in a few words (see the contracts' workloadName). */
export function workloadName(cell: Pick<CellDto, "scenario" | "params">): string {
  return sharedWorkloadName(cell);
}

/** A closed-model load level as people say it, grouped as the tables print numbers: "1 VU", "1,000 VUs". */
export const vusLabel = (vus: number): string => `${formatInt(vus)} ${vus === 1 ? "VU" : "VUs"}`;

/** An open-model load level as people say it: "1 call/s", "5,000 calls/s", "50 sessions/s". */
const rateLabel = (rate: number, scenario: string | undefined): string =>
  `${formatInt(rate)} ${rateWord(scenario, rate)}/s`;

/**
 * A load level of either model as people say it: "50 VUs" (closed), "500 calls/s" (open; "500
 * requests/s" when its scenario is a plain HTTP route); null when it has neither. `rate` may be
 * absent (cells frozen in reports before the open model existed).
 */
export function levelLabel(level: {
  vus: number | null;
  rate?: number | null;
  scenario?: string;
}): string | null {
  const rate = level.rate ?? null;
  if (rate !== null) return rateLabel(rate, level.scenario);
  return level.vus === null ? null : vusLabel(level.vus);
}

/**
 * A cell's number as its run's own page prints it: "#3". A comparison of runs numbers the cells
 * of all its runs apart (`index`, unique among them) and keeps each one's own in `shownIndex`.
 */
export type CellNumbering = { index: number; shownIndex?: number };
export const cellNumber = (cell: CellNumbering): string => `#${cell.shownIndex ?? cell.index}`;

/**
 * A short name for a cell in legends and tables: server, tool (or route), load and round — the tool
 * too, so the cells of a run that calls several tools on one server are told apart.
 */
export function cellLabel(
  cell: Pick<CellDto, "index" | "serverName" | "vus" | "round" | "scenario" | "params"> & {
    rate?: number | null;
  },
): string {
  const what = cellTool(cell) || cellRoute(cell) ? ` · ${workloadName(cell)}` : "";
  const level = levelLabel(cell);
  const load = level === null ? "" : ` · ${level}`;
  return `${cellNumber(cell)} ${cell.serverName}${what}${load} · r${cell.round}`;
}
