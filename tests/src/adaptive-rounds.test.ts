/**
 * Adaptive rounds against the real stack: the suite's worker runs go and python on fibonacci(25)
 * (CPU-bound recursion: servers tens of times apart, whatever else the machine runs) from a spec of
 * at least 2 rounds and at most 4, the first two queued as the web app queues them, adds each later
 * round itself and stops once the pair is separated.
 */
import { loadServerCatalog } from "@perflab/catalog";
import {
  CELL_JOB_OPTIONS,
  createMatrixSpecSchema,
  expandMatrix,
  JOB_CELL_RUN,
  QUEUE_CELLS,
  type TMatrixSpec,
  ZRoundsDecision,
} from "@perflab/contracts";
import type { Prisma } from "@perflab/db";
import { finishCell, logger } from "@perflab/worker/testing";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { redisConnection, startOwnRedis, testDb, waitForRun } from "./helpers.ts";

const catalog = loadServerCatalog().map((s) => ({ name: s.name, tools: s.tools }));

/** Writes the run and its first rounds' cells, then their jobs, as create-run does in the web app. */
async function queueMatrix(input: unknown, options: { enqueue?: boolean } = {}): Promise<string> {
  const spec: TMatrixSpec = createMatrixSpecSchema({ servers: catalog }).parse(input);
  const plans = expandMatrix(spec);
  const db = testDb();
  const workspace = await db.workspace.upsert({
    where: { slug: "tests" },
    create: { slug: "tests", name: "Tests" },
    update: {},
  });
  const run = await db.run.create({
    data: {
      workspaceId: workspace.id,
      source: "api",
      name: "adaptive rounds",
      spec: spec as unknown as Prisma.InputJsonValue,
      cellsTotal: plans.length,
      cells: {
        create: plans.map((plan) => ({
          index: plan.index,
          serverName: plan.serverName,
          scenario: plan.scenario,
          loadLevel: plan.loadLevel,
          params: plan.params as Prisma.InputJsonValue,
          round: plan.round,
          durationSeconds: spec.durationSec,
          warmupSeconds: spec.warmupSec,
          driver: spec.driver,
        })),
      },
    },
    include: { cells: { orderBy: { index: "asc" } } },
  });
  if (options.enqueue === false) return run.id;
  const queue = new Queue(QUEUE_CELLS, { connection: redisConnection() });
  await queue.addBulk(
    run.cells.map((c) => ({
      name: JOB_CELL_RUN,
      data: { runId: run.id, cellId: c.id },
      opts: { ...CELL_JOB_OPTIONS, jobId: c.id },
    })),
  );
  await queue.close();
  return run.id;
}

describe("adaptive rounds", () => {
  it("adds rounds one at a time and stops as soon as servers far apart are separated", async () => {
    const runId = await queueMatrix({
      servers: ["go", "python"],
      scenarios: [{ id: "mcp-tool-call", params: { tool: "fibonacci", arguments: { n: 25 } } }],
      loadLevels: [{ vus: 10 }],
      rounds: 2,
      adaptive: { maxRounds: 4 },
      durationSec: 3,
      warmupSec: 1,
      cooldownSec: 0,
    });
    const run = await waitForRun(runId, 240_000);
    expect(run.status).toBe("succeeded");
    const decision = ZRoundsDecision.parse(run.roundsDecision);
    expect(decision.reason, JSON.stringify(decision)).toBe("separated");
    expect(decision.roundsDone).toBeGreaterThanOrEqual(2);
    const ops = await testDb().cellSummary.findMany({
      where: { cell: { runId } },
      select: { opsRps: true, cell: { select: { round: true, serverName: true } } },
    });
    expect(decision.roundsDone, JSON.stringify({ decision, ops })).toBeLessThan(4);
    expect(decision.pairs).toEqual([
      expect.objectContaining({
        workload: expect.stringMatching(/^fibonacci/),
        level: { vus: 10 },
        faster: "go",
        slower: "python",
        verdict: "separated",
      }),
    ]);
    expect(decision.pairs[0]!.gapPct![0]).toBeGreaterThan(0);
    // Every round the rule asked for ran, numbered on, its cells' indexes following the first rounds'.
    expect(run.cellsTotal).toBe(2 * decision.roundsDone);
    expect(run.cellsDone).toBe(run.cellsTotal);
    const cells = await testDb().cell.findMany({ where: { runId }, orderBy: { index: "asc" } });
    expect(cells.map((c) => [c.index, c.round, c.serverName, c.status])).toEqual(
      Array.from({ length: decision.roundsDone }, (_, r) => [
        [2 * r, r + 1, "go", "succeeded"],
        [2 * r + 1, r + 1, "python", "succeeded"],
      ]).flat(),
    );
  });

  it("adds a round once, however often the last cell's end is retried, its jobs named by the cells", async () => {
    // A Redis no worker takes jobs from: the round's jobs stay there to be looked at.
    const redis = await startOwnRedis("adaptive");
    const publisher = new Redis(redis.url, { maxRetriesPerRequest: 3 });
    const deps = { db: testDb(), publisher, log: logger.child({ test: "adaptive-rounds" }) };
    deps.log.level = "silent";
    try {
      const runId = await queueMatrix(
        {
          servers: ["go", "python"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo" } }],
          loadLevels: [{ vus: 1 }],
          rounds: 2,
          adaptive: { maxRounds: 3 },
          durationSec: 1,
        },
        { enqueue: false },
      );
      const cellsOf = () => testDb().cell.findMany({ where: { runId }, orderBy: { index: "asc" } });
      const end = (id: string) => finishCell(deps, id, runId, { status: "failed", error: "test" });
      // Failed cells leave every pair undecided: at the last of round 2 the rule asks for round 3.
      const rounds12 = await cellsOf();
      for (const cell of rounds12.slice(0, 3)) await end(cell.id);
      // A job of a run queued after this one, waiting when round 3 is queued.
      const queue = new Queue(QUEUE_CELLS, { connection: publisher });
      await queue.add(JOB_CELL_RUN, { runId: "later-run", cellId: "later-cell" }, { jobId: "later-cell" });
      await end(rounds12[3]!.id);
      const last = (await cellsOf())[3]!;
      await end(last.id);
      const cells = await cellsOf();
      expect(cells.map((c) => [c.index, c.round, c.status])).toEqual([
        [0, 1, "failed"],
        [1, 1, "failed"],
        [2, 2, "failed"],
        [3, 2, "failed"],
        [4, 3, "queued"],
        [5, 3, "queued"],
      ]);
      let run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect(run).toMatchObject({ cellsTotal: 6, cellsDone: 4, finishedAt: null });
      expect(ZRoundsDecision.parse(run.roundsDecision)).toMatchObject({ roundsDone: 2, reason: null });
      const jobs = await queue.getJobs(["waiting"]);
      await queue.close();
      expect(jobs.map((j) => j.id).sort()).toEqual([cells[4]!.id, cells[5]!.id, "later-cell"].sort());
      // A worker takes round 3 next, in index order, before the run queued after it.
      const blocking = new Redis(redis.url, { maxRetriesPerRequest: null });
      const taker = new Worker(QUEUE_CELLS, null, { connection: blocking, autorun: false });
      const taken: (string | undefined)[] = [];
      for (let i = 0; i < 3; i++) taken.push((await taker.getNextJob("adaptive-order"))?.id);
      await taker.close();
      await blocking.quit();
      expect(taken).toEqual([cells[4]!.id, cells[5]!.id, "later-cell"]);
      // Round 3 is the most: its end stops the run at the budget, with no round 4.
      for (const cell of cells.slice(4)) await end(cell.id);
      run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect(run).toMatchObject({ status: "failed", cellsTotal: 6, cellsDone: 6 });
      expect(ZRoundsDecision.parse(run.roundsDecision)).toMatchObject({
        roundsDone: 3,
        reason: "max-rounds",
      });
    } finally {
      await publisher.quit();
      await redis.stop();
    }
  });
});
