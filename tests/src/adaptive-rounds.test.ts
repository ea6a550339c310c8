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
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { redisConnection, testDb, waitForRun } from "./helpers.ts";

const catalog = loadServerCatalog().map((s) => ({ name: s.name, tools: s.tools }));

/** Writes the run and its first rounds' cells, then their jobs, as create-run does in the web app. */
async function queueMatrix(input: unknown): Promise<string> {
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
});
