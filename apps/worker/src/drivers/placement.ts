import { type CatalogEntry, serverBuildFailure } from "@perflab/catalog";
import { engineIsLocal, freePort } from "../host.ts";
import type { FixtureBackends } from "../stages/fixtures.ts";
import { waitForHealthy } from "../stages/health.ts";
import type { K6Runner } from "../stages/k6.ts";
import { fetchRuntime } from "../stages/sampler.ts";
import { endpointPlacement } from "./endpoint.ts";
import type { Driver, DriverId, RunningServer, StartRequest } from "./types.ts";

/**
 * For servers on a remote engine: k6 in a container on that engine (started on first need), and the
 * fixture backends as containers there.
 */
export type RemoteEngine = {
  k6: () => Promise<{ runner: K6Runner; version: string }>;
  fixtures: FixtureBackends;
};

/** What a worker places cells with: its drivers, and the k6 and fixtures of each machine it loads. */
export type PlacementResources = {
  drivers: Record<DriverId, Driver>;
  fixtures: FixtureBackends;
  k6: K6Runner;
  /** Null when the engine is this machine's. */
  engine?: RemoteEngine | null;
};

/** A placement's refusal, with a reason a user can act on. */
export class PlacementError extends Error {}

/** How the worker watches a started server: health, /debug/runtime and the machine's CPU. */
export type ServerWatch = {
  /** The time the server first answered an MCP initialize; rejects with the reason it did not. */
  waitHealthy(input: { timeoutMs: number; signal?: AbortSignal }): Promise<number>;
  /** /debug/runtime as first read after health, or null. */
  firstRuntime(): Promise<unknown>;
  /** The latest /debug/runtime reading (undefined when there is none). */
  runtime(): Promise<unknown>;
  /** The server machine's busy and total jiffies; absent: this machine's. */
  hostCpu?: () => Promise<{ busy: number; total: number } | null>;
};

/**
 * Where one cell runs and is loaded from: a local process, a container on this machine's engine, or
 * one on a remote engine, whose k6, fixtures and watching then run on that machine too.
 */
export interface Placement {
  readonly driverId: DriverId | "endpoint";
  /** Why the server cannot run here (a failed native build, k6 that cannot reach it), or null. */
  unavailable(server: CatalogEntry): string | null;
  /** The k6 that loads the server; `version` when it is not the worker's own (recorded on the cell). */
  k6(): Promise<{ runner: K6Runner; version: string | null }>;
  readonly fixtures: FixtureBackends;
  /** The port to start the server on (0: the driver picks one free on its machine). */
  port(server: CatalogEntry): Promise<number>;
  start(request: StartRequest): Promise<RunningServer>;
  watch(running: RunningServer, target: WatchTarget): ServerWatch;
}

/**
 * Where a cell's server runs: a registered server's kind decides (an image under docker, a command
 * under the local driver, an endpoint as it already runs); the lab's own servers follow the cell's driver.
 */
export function placementFor(
  resources: PlacementResources,
  env: { PERFLAB_BUILD_DIR: string; DOCKER_HOST?: string | undefined },
  cellDriver: string,
  server: CatalogEntry,
): Placement | null {
  const kind = server.registered?.kind;
  if (kind === "endpoint") return endpointPlacement(resources, server);
  const driverId = kind === "image" ? "docker" : kind === "command" ? "local" : cellDriver;
  return createPlacement(resources, env, driverId);
}

/** The placement of a cell by its driver id, or null when this worker has no such driver. */
export function createPlacement(
  resources: PlacementResources,
  env: { PERFLAB_BUILD_DIR: string; DOCKER_HOST?: string | undefined },
  driverId: string,
): Placement | null {
  const driver = resources.drivers[driverId as DriverId];
  if (!driver) return null;
  // A server on a remote engine is loaded, fed and watched from that machine; a local one from here.
  const onEngine = driver.remote === true;
  const engine = resources.engine ?? null;
  return {
    driverId: driver.id,
    unavailable(server) {
      // The local driver runs the native build: a failed one would start a stale binary or none.
      const buildFailure =
        driver.id === "local" ? serverBuildFailure(env.PERFLAB_BUILD_DIR, server.base) : null;
      if (buildFailure) return `the ${server.base} server did not build (${buildFailure})`;
      if (!onEngine && resources.k6.kind === "docker" && !engineIsLocal(env.DOCKER_HOST ?? "")) {
        return `k6 runs in a container on the Docker engine at DOCKER_HOST=${env.DOCKER_HOST}, another machine, and load traffic never leaves a machine's loopback: a local server needs PERFLAB_K6_RUNNER=local`;
      }
      if (onEngine && !engine) return "this worker has no remote engine set up";
      return null;
    },
    async k6() {
      if (!onEngine || !engine) return { runner: resources.k6, version: null };
      return engine.k6().catch((error: Error) => {
        throw new PlacementError(`k6 could not start on the Docker engine: ${error.message}`);
      });
    },
    get fixtures() {
      return onEngine && engine ? engine.fixtures : resources.fixtures;
    },
    // A remote engine's driver picks a port free on its machine; a registered server may fix its own.
    port: (server) =>
      onEngine ? Promise.resolve(0) : Promise.resolve(server.registered?.port ?? freePort()),
    start: (request) => driver.start(request),
    watch: watchServer,
  };
}

/** Where a server answers: its MCP endpoint, or null for a REST-only server, healthy at `healthPath`. */
export type WatchTarget = { baseUrl: string; mcpPath: string | null; healthPath: string };

/** Through the driver's observer when the server is out of the worker's reach, else over HTTP here. */
function watchServer(running: RunningServer, target: WatchTarget): ServerWatch {
  const observer = running.observer;
  const runtimeUrl = `${target.baseUrl}/debug/runtime`;
  if (observer) {
    return {
      waitHealthy: ({ timeoutMs }) => observer.waitHealthy({ timeoutMs, exited: running.exited }),
      firstRuntime: () => observer.firstRuntime(),
      runtime: observer.runtime,
      hostCpu: observer.hostCpu,
    };
  }
  return {
    waitHealthy: ({ timeoutMs, signal }) =>
      waitForHealthy({
        baseUrl: target.baseUrl,
        mcpPath: target.mcpPath,
        healthPath: target.healthPath,
        timeoutMs,
        exited: running.exited,
        ...(signal ? { signal } : {}),
      }),
    firstRuntime: () =>
      fetch(runtimeUrl, { signal: AbortSignal.timeout(1_000) })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null),
    runtime: () => fetchRuntime(runtimeUrl),
  };
}
