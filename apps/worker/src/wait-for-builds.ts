import { setTimeout as sleep } from "node:timers/promises";
import { serversBuilding } from "@perflab/catalog";

/**
 * Holds a cell while servers are being built on this machine (the quick start serves the dashboard
 * before Rust's release build ends): a compiler beside the load would be measured as the server's
 * slowness. Calls `onWait` when the set of builds changes and again every `repeatMs`, so a run page
 * opened meanwhile learns why its cell has not started. Returns when no build runs or on `signal`.
 */
export async function waitForServerBuilds(input: {
  buildDir: string;
  signal: AbortSignal;
  onWait: (building: string[]) => Promise<void> | void;
  pollMs?: number;
  repeatMs?: number;
}): Promise<void> {
  const { buildDir, signal, onWait, pollMs = 1_000, repeatMs = 10_000 } = input;
  let told = "";
  let toldAt = 0;
  while (!signal.aborted) {
    const building = serversBuilding(buildDir);
    if (building.length === 0) return;
    const key = building.join(",");
    if (key !== told || Date.now() - toldAt >= repeatMs) {
      told = key;
      toldAt = Date.now();
      await onWait(building);
    }
    await sleep(pollMs, undefined, { signal }).catch(() => undefined);
  }
}
