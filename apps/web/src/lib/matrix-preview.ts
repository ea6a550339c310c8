import { CELL_START_STOP_SEC } from "@perflab/contracts";
import { formatDuration } from "./format";

export { CELL_START_STOP_SEC };

/** "10, 50 100;200" → ["10", "50", "100", "200"]: one load level per value, left for the schema to judge. */
export function splitVuList(text: string): string[] {
  return text.split(/[\s,;]+/).filter((token) => token !== "");
}

export type MatrixSize = {
  servers: number;
  scenarios: number;
  levels: number;
  rounds: number;
  durationSec: number;
  warmupSec: number;
  cooldownSec: number;
};

export type MatrixEstimate = { cells: number; cellSec: number; totalSec: number };

/** Cells = servers × scenarios × load levels × rounds, run one after another. */
export function estimateMatrix(size: MatrixSize): MatrixEstimate {
  const cells = size.servers * size.scenarios * size.levels * size.rounds;
  const cellSec = size.warmupSec + size.durationSec + size.cooldownSec + CELL_START_STOP_SEC;
  return { cells, cellSec, totalSec: cells * cellSec };
}

/** A rough wall time: "~40 s", "~9 min", "~2 h 5 min". */
export function formatApproxDuration(seconds: number): string {
  if (seconds < 90) return `~${Math.max(5, Math.round(seconds / 5) * 5)} s`;
  return `~${formatDuration(Math.round(seconds / 60) * 60)}`;
}
