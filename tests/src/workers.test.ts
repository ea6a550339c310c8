import os from "node:os";
import {
  type TWorkerPresence,
  WORKER_PRESENCE_INDEX,
  WORKER_PRESENCE_PREFIX,
  WORKER_PRESENCE_TTL_MS,
} from "@perflab/contracts";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freePort, startWeb, startWorker } from "../../scripts/lib/services.ts";
import {
  api,
  expectConforms,
  launchChromium,
  ownWorkerEnv,
  pageOf,
  queueRun,
  startOwnRedis,
  until,
  waitForRun,
} from "./helpers.ts";

const listed = async () => {
  const { status, body } = await api("/api/v1/workers");
  expect(status).toBe(200);
  await expectConforms(body, "/api/v1/workers", "get", 200, "application/json");
  return (body as { workers: TWorkerPresence[] }).workers;
};

const redis = new Redis(inject("redisUrl"));
afterAll(() => redis.quit());

describe("the workers the web app knows of", () => {
  it("lists the running worker with its k6, and the cell it takes", async () => {
    const [main] = (await listed()).filter((w) => w.hostId === os.hostname());
    expect(main).toBeDefined();
    expect(main!.k6.version).toMatch(/v\d+\.\d+/);
    // Rewritten with a time to live, so a worker killed with -9 lapses instead of staying listed.
    const ttl = await redis.pttl(`${WORKER_PRESENCE_PREFIX}${main!.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WORKER_PRESENCE_TTL_MS);

    // The host held by the test: the worker takes the cell and waits for the host, saying which cell.
    const lockKey = `perflab:host-lock:${os.hostname()}`;
    await redis.set(lockKey, "held-by-the-test", "PX", 60_000);
    try {
      const { runId, cellIds } = await queueRun([
        { serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 },
      ]);
      await until(
        async () => (await listed()).some((w) => w.cell?.id === cellIds[0] && w.cell?.runId === runId),
        20_000,
        "a worker to list the cell it took",
      );
      await redis.del(lockKey);
      expect((await waitForRun(runId, 60_000)).status).toBe("succeeded");
      await until(
        async () => (await listed()).every((w) => w.cell === null),
        10_000,
        "the worker to list itself idle again",
      );
    } finally {
      await redis.del(lockKey);
    }
  });

  it("says a worker does not reach its Docker engine, and why; a stopped worker leaves the list at once", async () => {
    const socket = "/nonexistent/perflab-docker.sock";
    const logs: string[] = [];
    const second = startWorker({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      env: ownWorkerEnv("no-engine", { DOCKER_HOST: `unix://${socket}` }),
      log: (line) => logs.push(line),
    });
    try {
      const pid = second.child.pid!;
      const found = await until(
        async () => (await listed()).find((w) => w.pid === pid),
        60_000,
        "the second worker to be listed",
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${second.exitReason() ?? logs.slice(-20).join("\n")}`);
      });
      expect(found.docker).toMatchObject({ engine: "local", reachable: false, version: null });
      expect(found.docker.error).toContain(socket);
      await second.stop();
      expect((await listed()).some((w) => w.pid === pid)).toBe(false);
      expect(await redis.sismember(WORKER_PRESENCE_INDEX, found.id)).toBe(0);
      // A worker killed with -9 leaves its id behind once its key lapses: the list drops it.
      await redis.sadd(WORKER_PRESENCE_INDEX, "lapsed:1:00000000");
      expect((await listed()).some((w) => w.id === "lapsed:1:00000000")).toBe(false);
      expect(await redis.sismember(WORKER_PRESENCE_INDEX, "lapsed:1:00000000")).toBe(0);
    } finally {
      await second.stop();
    }
  });

  it("the run form says no worker runs, then that the one that started reaches no Docker engine", async () => {
    // A lab of its own (its own Redis): the suite's worker is not on it.
    const ownRedis = await startOwnRedis("workers-form");
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: ownRedis.url,
      port: await freePort(),
    });
    const socket = "/nonexistent/perflab-docker.sock";
    let worker: ReturnType<typeof startWorker> | null = null;
    const browser = await launchChromium();
    try {
      await pageOf(browser, "workers-form", async (page) => {
        await page.goto(`${web.url}/runs/new`);
        await expect
          .poll(() => page.getByTestId("workers-notice").textContent(), { timeout: 15_000 })
          .toMatch(/No worker is running/);
        worker = startWorker({
          databaseUrl: inject("databaseUrl"),
          redisUrl: ownRedis.url,
          env: ownWorkerEnv("workers-form", { DOCKER_HOST: `unix://${socket}` }),
        });
        // The form reads the workers every 10 s.
        await expect.poll(() => page.getByTestId("workers-notice").count(), { timeout: 75_000 }).toBe(0);
        await expect(page.getByTestId("docker-notice").count()).resolves.toBe(0);
        await page.getByLabel("Driver").selectOption("docker");
        await expect
          .poll(() => page.getByTestId("docker-notice").textContent())
          .toContain(`No running worker reaches a Docker engine (connect ENOENT ${socket})`);
        await page.getByLabel("Driver").selectOption("local");
        await expect.poll(() => page.getByTestId("docker-notice").count()).toBe(0);
        // The list of runs shows who takes queued cells and what each is doing.
        await page.goto(web.url);
        const strip = page.getByTestId("workers");
        await expect
          .poll(() => strip.textContent(), { timeout: 15_000 })
          .toMatch(/pid \d+\s*idle\s*· k6 v\d+\.\d+\.\d+ · no Docker engine/);
      });
    } finally {
      await browser.close();
      await (worker as ReturnType<typeof startWorker> | null)?.stop();
      await web.stop();
      await ownRedis.stop();
    }
  });
});
