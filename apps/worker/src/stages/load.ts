import {
  isScenarioId,
  k6Env,
  k6Files,
  type ScenarioId,
  scenarioCatalog,
  type TLoadLevel,
} from "@perflab/contracts";
import type { CellContext, CellRow } from "../cell/context.ts";
import { CellFailure } from "../cell/errors.ts";
import type { ExitInfo } from "../drivers/types.ts";
import { OWNER_ENV } from "../owner.ts";
import type { K6Run } from "./k6.ts";
import type { Placed } from "./place.ts";
import type { StartedServer } from "./start.ts";
import { scenarioScript } from "./stored-script.ts";

export type CellScenario = {
  id: ScenarioId;
  entry: (typeof scenarioCatalog)[ScenarioId];
  params: unknown;
  level: TLoadLevel;
};

/** The cell's scenario, its parameters (checked again) and load level. */
export function cellScenario(cell: CellRow): CellScenario {
  if (!isScenarioId(cell.scenario)) {
    throw new CellFailure(`scenario "${cell.scenario}" is not known to this worker`);
  }
  const entry = scenarioCatalog[cell.scenario];
  return {
    id: cell.scenario,
    entry,
    params: entry.params.parse(cell.params),
    level: cell.loadLevel as TLoadLevel,
  };
}

export type StartedLoad = {
  k6: K6Run;
  /** The server's exit during the load, if it exited: a failure, whatever k6 reports. */
  serverExit: () => ExitInfo | null;
  /** Whether k6 has ended (by itself or stopped). */
  k6Ended: () => boolean;
  /** Stops forwarding the cell's abort to k6, once its output has been read. */
  detach: () => void;
};

/**
 * Starts k6 on the cell's scenario against the healthy server. A stop or the server's exit stops k6
 * (a server that dies mid-load would leave k6 counting refused connections).
 */
export async function startLoad(
  ctx: CellContext,
  placed: Placed,
  started: StartedServer,
  scenario: CellScenario,
): Promise<StartedLoad> {
  const { cell, signal, marker } = ctx;
  const { running } = started;
  // Server exits during the load are failures, whatever k6 reports.
  let serverExit: ExitInfo | null = null;
  running.exited.then((info) => {
    serverExit = info;
  });
  await ctx.stage(cell.warmupSeconds > 0 ? "warm-up" : "measuring");
  ctx.checkAbort();
  const { level } = scenario;
  const k6 = await placed.k6
    .run({
      workDir: ctx.workDir,
      script: await scenarioScript(ctx, scenario),
      env: {
        ...marker,
        ...k6Env(scenario.id, scenario.params, {
          target: started.baseUrl,
          mcpPath: placed.server.mcpPath,
          ...("rate" in level ? { rate: level.rate, maxVus: level.maxVus } : { vus: level.vus }),
          durationSec: cell.durationSeconds,
          warmupSec: cell.warmupSeconds,
          // The matrix's client timeout per request (TIMEOUT_MS); absent: k6's 60 s.
          timeoutMs: (cell.run.spec as { timeoutMs?: number }).timeoutMs,
        }),
      },
      files: k6Files(scenario.id, scenario.params),
      timeoutMs: (cell.warmupSeconds + cell.durationSeconds + 90) * 1000,
      cell: { id: cell.id, runId: cell.runId, owner: marker[OWNER_ENV]! },
    })
    .catch((error: Error) => {
      throw new CellFailure(`k6 could not start: ${error.message}`);
    });
  const onAbort = () => k6.kill();
  signal?.addEventListener("abort", onAbort);
  // An abort while k6 was starting has fired already: it would never reach the listener.
  if (signal?.aborted) k6.kill();
  // A server that dies mid-load ends the measurement: k6 would only count refused connections.
  void running.exited.then(() => k6.kill());
  let k6Ended = false;
  void k6.done.then(() => {
    k6Ended = true;
  });
  return {
    k6,
    serverExit: () => serverExit,
    k6Ended: () => k6Ended,
    detach: () => signal?.removeEventListener("abort", onAbort),
  };
}
