import type { CatalogEntry } from "@perflab/catalog";
import { hostCpuTimes } from "../proc.ts";
import { waitForHealthy } from "../stages/health.ts";
import { fetchRuntime } from "../stages/sampler.ts";
import type { Placement, PlacementResources } from "./placement.ts";
import type { ExitInfo, RunningServer } from "./types.ts";

/** What an endpoint cell cannot measure: recorded with its build, so pages say so instead of showing zeros. */
export const ENDPOINT_UNMEASURED = ["cpu", "rss"] as const;

/**
 * A server already running at a loopback URL (a registered endpoint): nothing is started or stopped.
 * k6 and the fixtures are this worker's; health is an MCP initialize at its URL; the runtime report,
 * if it names one, is read from its runtimeUrl. Its process is out of reach: no CPU or RSS.
 */
export function endpointPlacement(resources: PlacementResources, server: CatalogEntry): Placement {
  const url = server.registered?.url ?? null;
  const runtimeUrl = server.registered?.runtimeUrl ?? null;
  return {
    driverId: "endpoint",
    unavailable: () => (url ? null : `${server.name} is not a registered endpoint: it has no URL`),
    k6: async () => ({ runner: resources.k6, version: null }),
    fixtures: resources.fixtures,
    port: async () => server.registered?.port ?? 0,
    start: async () => attach(server.registered?.port ?? 0),
    watch: (running, target) => ({
      waitHealthy: ({ timeoutMs, signal }) =>
        waitForHealthy({ ...target, timeoutMs, exited: running.exited, ...(signal ? { signal } : {}) }).catch(
          (error: Error) => {
            if (signal?.aborted) throw error;
            throw new Error(
              `the registered endpoint ${url} is unreachable or unhealthy (${error.message}); perflab does not start an endpoint: start it, then run the cell again`,
            );
          },
        ),
      firstRuntime: async () => (runtimeUrl ? ((await fetchRuntime(runtimeUrl)) ?? null) : null),
      runtime: async () => (runtimeUrl ? fetchRuntime(runtimeUrl) : undefined),
      // On this machine's loopback: the machine's CPU is this one's.
      hostCpu: hostCpuTimes,
    }),
  };
}

/** "Exits" only when perflab lets go of it: an endpoint's process is not perflab's to watch or stop. */
function attach(port: number): RunningServer {
  let settle: (info: ExitInfo) => void = () => undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    settle = resolve;
  });
  const released: ExitInfo = { exitCode: null, signal: null, oomKilled: false };
  return {
    startedAt: Date.now(),
    port,
    exited,
    resources: async () => null,
    async stop() {
      settle(released);
      return released;
    },
    logTail: () => "",
  };
}
