import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { storedScriptId, USER_SCRIPT_FILE } from "@perflab/contracts";
import type { CellContext } from "../cell/context.ts";
import { CellFailure } from "../cell/errors.ts";
import type { CellScenario } from "./load.ts";

/**
 * The path of the k6 script a cell runs: its scenario's own, or, for a scenario that runs a stored
 * script, a copy of the scenarios' scripts in the cell's work dir with the workspace's script beside
 * them as the file the scenario's script imports. Both runners take every .js file beside the script.
 */
export async function scenarioScript(ctx: CellContext, scenario: CellScenario): Promise<string> {
  const scenariosDir = ctx.deps.env.PERFLAB_SCENARIOS_DIR;
  const scriptId = storedScriptId(scenario.id, scenario.params);
  if (scriptId === undefined) return path.join(scenariosDir, scenario.entry.script);
  // Only the run's own workspace: another's script, or one deleted since, is not found.
  const stored = await ctx.durable("the stored k6 script", () =>
    ctx.deps.db.k6Script.findFirst({
      where: { id: scriptId, workspaceId: ctx.cell.run.workspaceId },
      select: { source: true },
    }),
  );
  if (!stored) {
    throw new CellFailure(
      `the stored k6 script ${scriptId} is not in this run's workspace (was it removed?)`,
    );
  }
  const dir = path.join(ctx.workDir, "k6-script");
  await mkdir(dir, { recursive: true });
  for (const name of (await readdir(scenariosDir)).filter((n) => n.endsWith(".js"))) {
    await copyFile(path.join(scenariosDir, name), path.join(dir, name));
  }
  await writeFile(path.join(dir, USER_SCRIPT_FILE), stored.source, { mode: 0o600 });
  return path.join(dir, scenario.entry.script);
}
