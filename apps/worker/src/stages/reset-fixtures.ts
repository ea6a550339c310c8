import type { CellContext } from "../cell/context.ts";
import { abortable, CellFailure } from "../cell/errors.ts";
import type { FixtureBackends } from "./fixtures.ts";

/**
 * Starts the fixture backends if they are not running, and resets them to their seed, for a cell
 * whose scenario uses them. Returns the backends' environment for the server (empty when unused).
 */
export async function resetFixtures(
  ctx: CellContext,
  fixtures: FixtureBackends,
  needed: boolean,
): Promise<Record<string, string>> {
  const { signal } = ctx;
  let backends: Record<string, string> = {};
  if (needed) {
    await ctx.stage("resetting fixtures");
    backends = await abortable(
      fixtures.ensure().catch((error: Error) => {
        throw new CellFailure(`fixtures could not start: ${error.message}`);
      }),
      signal,
    );
    await abortable(
      fixtures.reset(signal).catch((error: Error) => {
        throw new CellFailure(error.message);
      }),
      signal,
    );
    await ctx.stage("starting server");
  }
  ctx.checkAbort();
  return backends;
}
