import { fixturesImageTag, k6ImageTag } from "@perflab/catalog";
import type { Db } from "@perflab/db";
import type { WorkerEnv } from "../env.ts";
import { engineIsLocal } from "../host.ts";
import type { Logger } from "../logger.ts";
import { ownerMarker } from "../owner.ts";
import { Fixtures } from "../stages/fixtures.ts";
import type { K6Runner } from "../stages/k6.ts";
import { createDockerDriver, type DockerDriver } from "./docker.ts";
import { dockerAt, LABEL_INSTANCE, LABEL_OWNER } from "./docker-engine.ts";
import { EngineFixtures } from "./engine-fixtures.ts";
import { createDockerK6Runner } from "./k6-docker.ts";
import { createLocalK6Runner } from "./k6-local.ts";
import { localDriver } from "./local.ts";
import type { PlacementResources, RemoteEngine } from "./placement.ts";
import type { Driver } from "./types.ts";

/**
 * A server registered only as a prebuilt image (perflab.json `image`, no `start.command`) has nothing
 * a process driver could start: its cells fail saying so instead of spawning nothing.
 */
export function withoutImageOnly(driver: Driver): Driver {
  return {
    ...driver,
    async start(request) {
      const { server } = request;
      if (server.start.command.length === 0) {
        throw new Error(
          `${server.base} is registered as the prebuilt image ${server.image ?? "(none)"} and its perflab.json has no start.command, so it runs under the docker driver only`,
        );
      }
      return driver.start(request);
    },
  };
}

/** Everything this worker places cells with, made once at its start. */
export type WorkerPlacements = PlacementResources & {
  /** The worker's own k6's version (a missing binary or image fails the start, naming its fix). */
  k6Version: string;
  /** Where docker cells run: this machine's engine, or one on another machine. */
  engine: RemoteEngine | null;
  engineKind: "local" | "remote";
  /** Removes containers left by dead workers of this host; returns the cells they ran. */
  removeOrphanContainers: () => Promise<string[]>;
  dockerVersion: () => Promise<{ Version?: string }>;
  /**
   * The machine a cell loads, for the host lock: a cell on a remote engine runs on the engine's
   * machine, which workers on other hosts may share.
   */
  lockHostFor: (cellId: string) => Promise<string>;
  close: () => Promise<void>;
};

export async function createWorkerPlacements(env: WorkerEnv, log: Logger, db: Db): Promise<WorkerPlacements> {
  // An engine on another machine: its servers get k6, fixtures and a probe on that machine too.
  const remoteEngine = !engineIsLocal(env.DOCKER_HOST ?? "");
  const fixturesImage = () => fixturesImageTag(env.PERFLAB_FIXTURES_DIR);
  const docker = createDockerDriver({
    docker: dockerAt(env.DOCKER_HOST),
    hostId: env.PERFLAB_HOST_ID,
    cpuset: env.PERFLAB_DOCKER_CPUSET,
    ...(remoteEngine ? { remote: { probeImage: fixturesImage } } : {}),
  });
  const dockerK6 = async () =>
    createDockerK6Runner({
      docker: docker.docker,
      instance: docker.instance,
      image: env.PERFLAB_K6_IMAGE ?? (await k6ImageTag(env.PERFLAB_K6_SOURCE_DIR)),
    });
  const k6: K6Runner =
    env.PERFLAB_K6_RUNNER === "docker" ? await dockerK6() : createLocalK6Runner(env.PERFLAB_K6_BIN);
  // A missing binary or image stops the worker here, with the command that provides it.
  const k6Version = await k6.version();
  const fixtures = new Fixtures({
    fixturesDir: env.PERFLAB_FIXTURES_DIR,
    labDatabaseUrl: env.DATABASE_URL,
    apiUrl: env.PERFLAB_FIXTURE_API_URL,
    hostId: env.PERFLAB_HOST_ID,
    log,
  });
  const engine: RemoteEngine | null = remoteEngine
    ? {
        k6: sharedEngineK6(async () => (k6.kind === "docker" ? k6 : await dockerK6())),
        fixtures: new EngineFixtures({
          docker: docker.docker,
          image: fixturesImage,
          labels: { [LABEL_OWNER]: ownerMarker(env.PERFLAB_HOST_ID), [LABEL_INSTANCE]: docker.instance },
          log,
        }),
      }
    : null;
  return {
    drivers: { local: withoutImageOnly(localDriver), docker },
    fixtures,
    k6,
    k6Version,
    engine,
    engineKind: remoteEngine ? "remote" : "local",
    removeOrphanContainers: () => docker.removeOrphans(),
    dockerVersion: () => docker.docker.version(),
    lockHostFor: engineLockHost(env.PERFLAB_HOST_ID, remoteEngine, docker, db),
    async close() {
      await fixtures.close();
      await engine?.fixtures.close();
    },
  };
}

/** k6 on the remote engine, started on first need and shared by the cells after it (again after a failure). */
function sharedEngineK6(runner: () => Promise<K6Runner>): RemoteEngine["k6"] {
  let engineK6: ReturnType<RemoteEngine["k6"]> | null = null;
  return () => {
    engineK6 ??= (async () => {
      const k6 = await runner();
      return { runner: k6, version: await k6.version() };
    })();
    engineK6.catch(() => {
      engineK6 = null;
    });
    return engineK6;
  };
}

function engineLockHost(hostId: string, remoteEngine: boolean, docker: DockerDriver, db: Db) {
  let engineId: Promise<string> | null = null;
  return async (cellId: string): Promise<string> => {
    if (!remoteEngine) return hostId;
    const cell = await db.cell.findUnique({ where: { id: cellId }, select: { driver: true } });
    if (cell?.driver !== "docker") return hostId;
    engineId ??= docker.docker.info().then((info: { ID: string }) => `engine:${info.ID}`);
    return engineId.catch(() => {
      engineId = null;
      return hostId;
    });
  };
}
