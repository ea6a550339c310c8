import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { runChannel, type TLiveEvent } from "@perflab/contracts";
import { markBuilding } from "@perflab/contracts/server-builds";
import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freePort, type Service, startWeb, startWorker } from "../../scripts/lib/services.ts";
import { ownWorkerEnv, queueRun, startOwnRedis, testDb, until, waitForRun } from "./helpers.ts";

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
  });
});
