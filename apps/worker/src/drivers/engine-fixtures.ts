import { randomBytes } from "node:crypto";
import { PassThrough, type Readable } from "node:stream";
import type Docker from "dockerode";
import type { Logger } from "../logger.ts";
import type { FixtureBackends } from "../stages/fixtures.ts";
import { requireImage } from "./attached.ts";
import { LABEL_ROLE } from "./docker-engine.ts";
import { LogTail } from "./local.ts";
import { enginePorts, engineWait } from "./probe.ts";

const RESET_TIMEOUT_MS = 150_000;

export const BACKEND_IMAGES = { redis: "perflab/redis:7", postgres: "perflab/postgres:15" } as const;

/**
 * The fixture backends of servers on a Docker engine on another machine: the fixture API, a Redis
 * and a Postgres as containers on that machine's host network (127.0.0.1 only), since a server there
 * cannot reach the worker's. Started on first need, reset by a /fixture-reset container before every
 * cell that uses them, removed when the worker stops (or by the next worker, through their labels).
 */
export class EngineFixtures implements FixtureBackends {
  private started: Promise<Record<string, string>> | null = null;
  private readonly containers: Docker.Container[] = [];
  /** The scratch Postgres's own superuser, for the reset only: servers never get it. */
  private ownerUrl = "";

  constructor(
    private readonly options: {
      docker: Docker;
      /** The fixtures image (fixture API, reset and probe), by the tag build-images.sh gives it. */
      image: () => Promise<string> | string;
      /** The worker's owner and instance labels. */
      labels: Record<string, string>;
      log: Logger;
    },
  ) {}

  async ensure(): Promise<Record<string, string>> {
    // Backends that died since (the engine restarted, a container was removed) are started afresh.
    if (this.started && !(await this.running())) {
      this.options.log.warn("fixtures on the Docker engine stopped; starting them again");
      await this.close();
    }
    this.started ??= this.start().catch(async (error) => {
      this.started = null;
      await this.removeContainers();
      throw error;
    });
    return this.started;
  }

  private async running(): Promise<boolean> {
    const backends = await this.started!.catch(() => null);
    if (!backends) return false;
    const states = await Promise.all(
      this.containers.map((c) =>
        c
          .inspect()
          .then((info) => info.State.Running)
          .catch(() => false),
      ),
    );
    return states.every(Boolean);
  }

  async reset(signal?: AbortSignal): Promise<void> {
    const env = await this.ensure();
    const began = Date.now();
    const { code, output } = await this.runToEnd(
      {
        Image: await this.options.image(),
        Entrypoint: ["/fixture-reset"],
        // The owner resets; servers got the SELECT-only reader the reset (re)creates.
        Env: [
          `REDIS_URL=${env.REDIS_URL}`,
          `DATABASE_URL=${this.ownerUrl}`,
          `DATABASE_READER_URL=${env.DATABASE_URL}`,
        ],
      },
      signal,
    );
    if (code !== 0) {
      throw new Error(
        `fixture reset failed (exit ${code}): ${output.trim().split("\n").slice(-3).join(" | ")}`,
      );
    }
    this.options.log.debug({ ms: Date.now() - began }, "fixtures on the engine reset");
  }

  async close(): Promise<void> {
    // A start under way finishes first, so none of its containers is left behind.
    await this.started?.catch(() => undefined);
    this.started = null;
    await this.removeContainers();
  }

  private async removeContainers(): Promise<void> {
    const containers = this.containers.splice(0);
    await Promise.all(containers.map((c) => c.remove({ force: true, v: true }).catch(() => undefined)));
  }

  private async start(): Promise<Record<string, string>> {
    const { docker } = this.options;
    const image = await this.options.image();
    for (const backend of [image, BACKEND_IMAGES.redis, BACKEND_IMAGES.postgres])
      await requireImage(docker, backend, "fixtures backends (DOCKER_HOST set to this engine)");
    const probe = { docker, image, labels: this.labels("probe") };
    const [apiPort, redisPort, pgPort] = (await enginePorts(probe, 3)) as [number, number, number];
    const password = randomBytes(12).toString("hex");
    const common = {
      NetworkMode: "host",
      SecurityOpt: ["no-new-privileges"],
      RestartPolicy: { Name: "no" },
    };
    await this.run({
      Image: image,
      Env: [`PORT=${apiPort}`],
      Labels: this.labels("fixture-api"),
      HostConfig: { ...common, CapDrop: ["ALL"], ReadonlyRootfs: true },
    });
    await this.run({
      Image: BACKEND_IMAGES.redis,
      // Never the lab's queue: flushed before every cell, so no persistence.
      Cmd: ["--bind", "127.0.0.1", "--port", String(redisPort), "--appendonly", "no", "--save", ""],
      Labels: this.labels("fixture-redis"),
      HostConfig: { ...common, CapDrop: ["ALL"] },
    });
    await this.run({
      Image: BACKEND_IMAGES.postgres,
      Env: [
        "POSTGRES_USER=perflab",
        `POSTGRES_PASSWORD=${password}`,
        "POSTGRES_DB=perflab_fixtures",
        `PGPORT=${pgPort}`,
      ],
      Labels: this.labels("fixture-postgres"),
      // The entrypoint initialises the cluster as root, then runs postgres as its own user; the data
      // is scratch (re-seeded per cell), so it lives in memory.
      HostConfig: { ...common, Tmpfs: { "/var/lib/postgresql/data": "rw,size=1g" } },
    });
    await Promise.all([
      engineWait(probe, `http://127.0.0.1:${apiPort}/health`, 30_000),
      engineWait(probe, `tcp://127.0.0.1:${redisPort}`, 30_000),
      // Postgres listens on TCP only once initdb and the database are done.
      engineWait(probe, `tcp://127.0.0.1:${pgPort}`, 60_000),
    ]);
    this.ownerUrl = `postgres://perflab:${password}@127.0.0.1:${pgPort}/perflab_fixtures`;
    this.options.log.info({ apiPort, redisPort, pgPort }, "fixtures started on the Docker engine");
    return {
      FIXTURE_API_URL: `http://127.0.0.1:${apiPort}`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}/0`,
      // Servers read as a role that may only SELECT users, as with the local fixtures.
      DATABASE_URL: `postgres://perflab_fixtures_reader:${randomBytes(24).toString("base64url")}@127.0.0.1:${pgPort}/perflab_fixtures`,
    };
  }

  private labels(role: string): Record<string, string> {
    return { ...this.options.labels, [LABEL_ROLE]: role };
  }

  private async run(options: Docker.ContainerCreateOptions): Promise<void> {
    const container = await this.options.docker.createContainer(options);
    this.containers.push(container);
    await container.start();
  }

  /**
   * Runs a one-off container to its end on the engine's host network; returns its code and output.
   * `signal` gives up on it at once (the container is removed either way).
   */
  private async runToEnd(
    options: Docker.ContainerCreateOptions,
    signal?: AbortSignal,
  ): Promise<{ code: number; output: string }> {
    const container = await this.options.docker.createContainer({
      ...options,
      Labels: this.labels("fixture-reset"),
      HostConfig: {
        NetworkMode: "host",
        SecurityOpt: ["no-new-privileges"],
        CapDrop: ["ALL"],
        ReadonlyRootfs: true,
        RestartPolicy: { Name: "no" },
      },
    });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      signal?.throwIfAborted();
      await container.start();
      // A reset gives up after 2 minutes itself; a hung container is killed a little later.
      const { StatusCode } = (await Promise.race([
        container.wait(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`fixture reset did not finish within ${RESET_TIMEOUT_MS / 1000} s`)),
            RESET_TIMEOUT_MS,
          );
          onAbort = () => reject(new Error("fixture reset stopped: the cell was stopped"));
          signal?.addEventListener("abort", onAbort, { once: true });
          if (signal?.aborted) onAbort();
        }),
      ])) as { StatusCode: number };
      const tail = new LogTail();
      const out = new PassThrough().setEncoding("utf8");
      out.on("data", (d: string) => tail.push(d));
      const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as
        | Buffer
        | Readable;
      if (Buffer.isBuffer(logs)) {
        const stream = new PassThrough();
        this.options.docker.modem.demuxStream(stream, out, out);
        stream.end(logs);
        await new Promise((r) => stream.once("end", r));
      }
      return { code: StatusCode, output: tail.toString() };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      await container.remove({ force: true, v: true }).catch(() => undefined);
    }
  }
}
