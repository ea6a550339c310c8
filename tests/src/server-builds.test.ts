import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { markBuildFailed, markBuilding, unmarkBuildFailed } from "@perflab/catalog";
import { QUEUE_CELLS, runChannel, type TLiveEvent } from "@perflab/contracts";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startWeb, startWorker } from "../../scripts/lib/services.ts";
import {
  ownWorkerEnv,
  queueRun,
  redisConnection,
  startOwnRedis,
  testDb,
  until,
  waitForRun,
} from "./helpers.ts";

const started: Service[] = [];
const builders: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  for (const b of builders.splice(0)) b.kill("SIGKILL");
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
});

/** A build in progress as scripts/build-servers.ts marks one: a live process named in <name>.building. */
function fakeBuild(buildDir: string, name: string) {
  const child = spawn("sleep", ["300"]);
  builders.push(child);
  markBuilding(buildDir, name, child.pid);
  return child;
}

describe("server builds in progress (the quick start serves the dashboard before Rust is built)", () => {
  it("hold every cell, queued and saying why, until the builds end; then the run goes on", async () => {
    const buildDir = path.join(inject("tmpDir"), "build-wait");
    mkdirSync(buildDir, { recursive: true });
    const rust = fakeBuild(buildDir, "rust");
    const redis = await startOwnRedis("build-wait");
    started.push(redis);
    const subscriber = new Redis(redis.url);
    const events: TLiveEvent[] = [];
    subscriber.on("pmessage", (_p, _c, message) => events.push(JSON.parse(message) as TLiveEvent));
    await subscriber.psubscribe(runChannel("*"));
    started.push({ stop: async () => void (await subscriber.quit()) } as Service);
    started.push(
      startWorker({
        databaseUrl: inject("databaseUrl"),
        redisUrl: redis.url,
        env: ownWorkerEnv("build-wait", { PERFLAB_BUILD_DIR: buildDir }),
      }),
    );
    // A go cell: the server being "built" is another, yet nothing is measured beside a compiler.
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 }],
      { redisUrl: redis.url },
    );
    const cellId = cellIds[0]!;
    const waiting = await until(
      async () => events.find((e) => e.type === "cell" && e.cellId === cellId && e.stage?.includes("rust")),
      60_000,
      "the worker to say the cell waits for the build",
    );
    expect(waiting).toMatchObject({ status: "queued", stage: "waiting for server builds to end: rust" });
    await new Promise((r) => setTimeout(r, 3_000));
    const db = testDb();
    expect((await db.cell.findUniqueOrThrow({ where: { id: cellId } })).status).toBe("queued");

    rust.kill("SIGKILL");
    const run = await waitForRun(runId, 60_000);
    expect(run.status).toBe("succeeded");
    const summary = await db.cellSummary.findUniqueOrThrow({ where: { cellId } });
    expect(summary.requests).toBeGreaterThan(0);
  });

  it("let a cell cancelled while it waits go at once, not when the builds end", async () => {
    const buildDir = path.join(inject("tmpDir"), "build-cancel");
    mkdirSync(buildDir, { recursive: true });
    fakeBuild(buildDir, "rust");
    const redis = await startOwnRedis("build-cancel");
    started.push(redis);
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: redis.url,
      port: await freePort(),
      env: { PERFLAB_BUILD_DIR: buildDir },
    });
    started.push(web);
    started.push(
      startWorker({
        databaseUrl: inject("databaseUrl"),
        redisUrl: redis.url,
        env: ownWorkerEnv("build-cancel", { PERFLAB_BUILD_DIR: buildDir }),
      }),
    );
    const queue = new Queue(QUEUE_CELLS, { connection: redisConnection(redis.url) });
    started.push({ stop: () => queue.close() } as Service);
    const { runId, cellIds } = await queueRun(
      [{ serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 }],
      { redisUrl: redis.url },
    );
    const cellId = cellIds[0]!;
    // The worker holds the cell (its job is active) while the build lasts.
    await until(
      async () => ((await queue.getJob(cellId))?.processedOn ? true : null),
      60_000,
      "the worker to take the cell's job",
    );
    const cancelled = await fetch(`${web.url}/api/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(202);
    // The job ends while the build still runs, so the host is free for the next run's cells.
    await until(
      async () => ((await queue.getJob(cellId))?.finishedOn ? true : null),
      10_000,
      "the held job to end after the cancel",
    );
    const db = testDb();
    const cell = await db.cell.findUniqueOrThrow({ where: { id: cellId } });
    expect([cell.status, cell.error, cell.startedAt]).toEqual(["cancelled", "cancelled before it ran", null]);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("cancelled");
  });

  it("that failed fail the server's local cells with the reason, and the run goes on", async () => {
    const buildDir = path.join(inject("tmpDir"), "build-failed");
    mkdirSync(buildDir, { recursive: true });
    const reason = "exit 1 after 2.0 s; log: .perflab/build/go.log; rebuild: pnpm build:servers go";
    markBuildFailed(buildDir, "go", reason);
    const redis = await startOwnRedis("build-failed");
    started.push(redis);
    started.push(
      startWorker({
        databaseUrl: inject("databaseUrl"),
        redisUrl: redis.url,
        env: ownWorkerEnv("build-failed", { PERFLAB_BUILD_DIR: buildDir }),
      }),
    );
    // The stateless variant is the same build; node built fine and still runs.
    const { runId, cellIds } = await queueRun(
      [
        { serverName: "go", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
        { serverName: "go:stateless", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
        { serverName: "node", vus: 2, durationSeconds: 2, warmupSeconds: 0 },
      ],
      { redisUrl: redis.url },
    );
    const run = await waitForRun(runId, 120_000);
    expect(run.status).toBe("partial");
    const db = testDb();
    const cells = await db.cell.findMany({ where: { runId }, orderBy: { index: "asc" } });
    expect(cells.map((c) => [c.id, c.status, c.error])).toEqual([
      [cellIds[0], "failed", `the go server did not build (${reason})`],
      [cellIds[1], "failed", `the go server did not build (${reason})`],
      [cellIds[2], "succeeded", null],
    ]);
    unmarkBuildFailed(buildDir, "go");
  });

  it("are named on the run form while they last", async () => {
    const buildDir = path.join(inject("tmpDir"), "build-form");
    mkdirSync(buildDir, { recursive: true });
    const java = fakeBuild(buildDir, "java");
    const web = await startWeb({
      databaseUrl: inject("databaseUrl"),
      redisUrl: inject("redisUrl"),
      port: await freePort(),
      env: { PERFLAB_BUILD_DIR: buildDir },
    });
    started.push(web);
    const form = async () => (await fetch(`${web.url}/runs/new`)).text();
    const html = await form();
    expect(html).toContain('data-testid="servers-building"');
    expect(html).toMatch(/data-testid="servers-building">Still building on this machine: (<!-- -->)?java\b/);
    java.kill("SIGKILL");
    await expect.poll(form, { timeout: 10_000 }).not.toContain('data-testid="servers-building"');

    // A failed build is named with its reason until the server builds.
    markBuildFailed(
      buildDir,
      "rust",
      "exit 101 after 9.0 s; log: .perflab/build/rust.log; rebuild: pnpm build:servers rust",
    );
    const failed = await form();
    expect(failed).toContain('data-testid="servers-build-failed"');
    expect(failed).toContain(
      "exit 101 after 9.0 s; log: .perflab/build/rust.log; rebuild: pnpm build:servers rust",
    );
    unmarkBuildFailed(buildDir, "rust");
    expect(await form()).not.toContain('data-testid="servers-build-failed"');
  });
});
