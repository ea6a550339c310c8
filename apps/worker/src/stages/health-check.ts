import type { CellContext } from "../cell/context.ts";
import { abortable, CellFailure } from "../cell/errors.ts";
import type { ServerWatch } from "../drivers/placement.ts";
import type { Placed } from "./place.ts";
import type { StartedServer } from "./start.ts";

/**
 * Waits for the server's first answered MCP initialize, then records its cold start, idle memory,
 * parallelism and the runtime version it reports. Returns the watch the load's sampler reads.
 */
export async function checkHealth(
  ctx: CellContext,
  placed: Placed,
  started: StartedServer,
): Promise<ServerWatch> {
  const { cell, deps, signal } = ctx;
  const { running, baseUrl, build } = started;
  const { server } = placed;
  const watch = placed.placement.watch(running, {
    baseUrl,
    mcpPath: server.protocols.includes("mcp") ? server.mcpPath : null,
    healthPath: server.healthPath,
  });
  const healthyAt = await abortable(
    watch
      .waitHealthy({ timeoutMs: deps.env.PERFLAB_HEALTH_TIMEOUT_MS, ...(signal ? { signal } : {}) })
      .catch((error: Error) => {
        throw new CellFailure(error.message);
      }),
    signal,
  );
  const runtime = await watch.firstRuntime();
  // The idle reading is the healthy server's, not a sample from before it started.
  const idle = await running.resources({ notBefore: healthyAt });
  const runtimeVersion = reportedRuntimeVersion(runtime);
  await deps.db.cell.update({
    where: { id: cell.id },
    data: {
      // The manifest says `python 3.11`; the interpreter that answered may be 3.11.7 or a 3.12.
      ...(runtimeVersion ? { serverBuild: { ...build, runtimeVersion } } : {}),
      healthyAt: new Date(healthyAt),
      coldStartMs: healthyAt - running.startedAt,
      idleRssBytes: idle ? BigInt(idle.rssBytes) : null,
      parallelism:
        runtime && typeof runtime === "object" && "parallelism" in runtime
          ? (runtime.parallelism as never)
          : undefined,
    },
  });
  return watch;
}

/** `runtime.version` of a server's /debug/runtime (`go1.26.8`, `v20.20.2`, `3.11.7`), or null. */
function reportedRuntimeVersion(runtime: unknown): string | null {
  const inner = runtime && typeof runtime === "object" ? (runtime as { runtime?: unknown }).runtime : null;
  const version = inner && typeof inner === "object" ? (inner as { version?: unknown }).version : null;
  return typeof version === "string" && version.trim() ? version.trim().slice(0, 120) : null;
}
