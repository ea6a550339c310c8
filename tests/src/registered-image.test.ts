/**
 * A server that ships as a prebuilt image: a folder holding only a perflab.json whose `image` names
 * it. The Go server's built image, tagged under another registry's name, plays that image. A worker of
 * its own (its own Redis, PERFLAB_SERVERS_DIR on a temporary folder) runs a docker cell of it and
 * records that image's id; a local cell of it and a docker cell of an image the engine lacks fail
 * saying why. build-images.sh skips a registered image and names a base it cannot stand in for.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { dockerAt, LABEL_CELL } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot, type Service, startWorker } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, queueRun, startOwnRedis, testDb, waitForRun } from "./helpers.ts";

const run = promisify(execFile);
const REGISTERED = "example.org/acme/mcp-go:1.0";
/** Registered too, but on no engine. */
const ABSENT = "example.org/acme/absent:1.0";
const NO_STAND_IN = "example.org/acme/base-without-stand-in:1";

const docker = dockerAt();
const started: Service[] = [];
let dir: string;
let serversDir: string;
let goImageId: string;

/** What a server that ships as an image writes: who it is and what to run, no build, no start command. */
const registered = (name: string, image: string) => ({
  name,
  displayName: `${name} (registered image)`,
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0" },
  image,
  tools: ["echo", "fibonacci"],
});

async function writeServer(name: string, manifest: object, dockerfile?: string) {
  await mkdir(path.join(serversDir, name));
  await writeFile(path.join(serversDir, name, "perflab.json"), JSON.stringify(manifest));
  if (dockerfile) await writeFile(path.join(serversDir, name, "Dockerfile"), dockerfile);
}

beforeAll(async () => {
  await docker.ping().catch((error: Error) => {
    throw new Error(`no Docker engine answers (${error.message}): run scripts/docker/start-dockerd.sh`);
  });
  const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;
  const goImage = await serverImageTag(go);
  goImageId = await docker
    .getImage(goImage)
    .inspect()
    .then((info: { Id: string }) => info.Id)
    .catch(() => {
      throw new Error(`${goImage} is not on the engine: run scripts/docker/build-images.sh go`);
    });
  const [repo, tag] = REGISTERED.split(/:(?=[^:]+$)/) as [string, string];
  await docker.getImage(goImage).tag({ repo, tag });
  await docker
    .getImage(ABSENT)
    .remove()
    .catch(() => undefined);
  dir = await mkdtemp(path.join(os.tmpdir(), "perflab-registered-"));
  serversDir = path.join(dir, "servers");
  await mkdir(serversDir);
  // Its runtime asks for one capability back (ZServerContainer); the cell records it.
  await writeServer("acme", {
    ...registered("acme", REGISTERED),
    container: { capabilities: ["NET_BIND_SERVICE"] },
  });
  await writeServer("acme-absent", registered("acme-absent", ABSENT));
});

afterAll(async () => {
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
  // Untags only: the Go server's own tag keeps the image.
  await docker
    .getImage(REGISTERED)
    .remove()
    .catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a server registered as a prebuilt image", () => {
  it("is a folder with a manifest: nothing to build, no start command, its image as the server's image", async () => {
    const [acme] = loadServerCatalog(serversDir);
    expect(acme!.name).toBe("acme");
    expect(acme!.image).toBe(REGISTERED);
    expect(acme!.start.command).toEqual([]);
    expect(acme!.build).toEqual({ command: "true", inputs: [] });
    expect(await serverImageTag(acme!)).toBe(REGISTERED);
  });

  it("is skipped by build-images.sh, which says so; a base with no stand-in fails naming the server", async () => {
    await writeServer(
      "no-stand-in",
      {
        ...registered("no-stand-in", REGISTERED),
        image: undefined,
        build: { command: "true" },
        start: { command: ["./server"] },
      },
      `ARG BASE_IMAGE=${NO_STAND_IN}\nFROM \${BASE_IMAGE}\n`,
    );
    const result = await run(
      "bash",
      [path.join(repoRoot, "scripts/docker/build-images.sh"), "acme", "acme-absent", "no-stand-in"],
      { cwd: repoRoot, env: { ...process.env, PERFLAB_SERVERS_DIR: serversDir }, timeout: 120_000 },
    ).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    await rm(path.join(serversDir, "no-stand-in"), { recursive: true });
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(
      `skipped server acme: its perflab.json registers the prebuilt image ${REGISTERED} (on the engine)`,
    );
    expect(result.out).toContain(
      `skipped server acme-absent: its perflab.json registers the prebuilt image ${ABSENT}, which is not on the engine yet: docker pull ${ABSENT}`,
    );
    expect(result.out).toMatch(
      new RegExp(
        `✗ no-stand-in: server no-stand-in's Dockerfile \\(\\S+/no-stand-in/Dockerfile\\) builds on ${NO_STAND_IN.replaceAll(".", "\\.")} \\(ARG BASE_IMAGE\\), which has no offline stand-in and is not on the Docker engine: pull or load it there \\(docker pull ${NO_STAND_IN.replaceAll(".", "\\.")}\\)`,
      ),
    );
    expect(result.out).toContain('register a prebuilt image with "image" in its perflab.json');
    // Nothing was built or tagged for them.
    for (const name of ["acme", "acme-absent", "no-stand-in"]) {
      const built = await docker.listImages({ filters: { reference: [`perflab/server-${name}`] } });
      expect(built, name).toEqual([]);
    }
  });

  it("runs under the docker driver and records that image's id; local and missing-image cells fail saying why", async () => {
    const redis = await startOwnRedis("registered-image");
    started.push(redis);
    const worker = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      env: ownWorkerEnv("registered-image", { PERFLAB_SERVERS_DIR: serversDir }),
    });
    started.push(worker);
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "acme", vus: 2, durationSeconds: 3, warmupSeconds: 1, driver: "docker" },
        { serverName: "acme", vus: 2, durationSeconds: 2, warmupSeconds: 0, driver: "local" },
        { serverName: "acme-absent", vus: 2, durationSeconds: 2, warmupSeconds: 0, driver: "docker" },
      ],
      { redisUrl: redis.url },
    );
    const finished = await waitForRun(runId, 180_000);
    const db = testDb();
    const [docked, local, absent] = await Promise.all(
      cellIds.map((id) => db.cell.findUniqueOrThrow({ where: { id }, include: { summary: true } })),
    );

    expect([docked!.status, docked!.error]).toEqual(["succeeded", null]);
    expect(docked!.serverBuild).toMatchObject({
      image: REGISTERED,
      imageId: goImageId,
      command: [],
      container: { writableRoot: false, capabilities: ["NET_BIND_SERVICE"] },
    });
    expect(docked!.coldStartMs).toBeGreaterThan(0);
    expect(docked!.summary!.requests).toBeGreaterThan(0n);
    expect(docked!.summary!.errors).toBe(0n);
    expect(docked!.summary!.k6Requests).toBe(docked!.summary!.requests);

    expect(local!.status).toBe("failed");
    expect(local!.error).toBe(
      `the server could not start: acme is registered as the prebuilt image ${REGISTERED} and its perflab.json has no start.command, so it runs under the docker driver only`,
    );
    expect(absent!.status).toBe("failed");
    expect(absent!.error).toBe(
      `the server could not start: image ${ABSENT} is not on the Docker engine: the manifest of acme-absent registers it as a prebuilt image, so pull or load it there (docker pull ${ABSENT})`,
    );
    expect(finished.status).toBe("partial");

    const containers = await docker.listContainers({ all: true, filters: { label: [LABEL_CELL] } });
    expect(containers.filter((c) => cellIds.includes(c.Labels[LABEL_CELL]!))).toEqual([]);
    expect(worker.exitReason()).toBeNull();
  });
});
