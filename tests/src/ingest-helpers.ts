import { setTimeout as sleep } from "node:timers/promises";
import { testDb } from "./helpers.ts";

/**
 * Waits while the suite's worker ingests an upload (the lab answers 202 and the run is `ingesting`
 * until then): the run's status and, for an output the worker refused, its reason.
 */
export async function ingested(
  runId: string,
  timeoutMs = 90_000,
): Promise<{ status: string; error: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await testDb().run.findUniqueOrThrow({
      where: { id: runId },
      select: { status: true, error: true },
    });
    if (run.status !== "ingesting") return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} was still ingesting after ${timeoutMs} ms`);
    await sleep(200);
  }
}
