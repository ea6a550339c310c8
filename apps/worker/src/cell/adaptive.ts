import {
  CELL_JOB_OPTIONS,
  type CellPlan,
  expandRound,
  JOB_CELL_RUN,
  loadLevelKey,
  QUEUE_CELLS,
  type TCellJob,
  type TLoadLevel,
  type TMatrixSpec,
  type TRoundsDecision,
  type TRoundsPair,
  workloadKeyOf,
  workloadName,
} from "@perflab/contracts";
import type { Prisma, Run } from "@perflab/db";
import {
  DEFAULT_ROUNDS_RULE,
  decideRounds,
  type RoundsGroup,
  type RoundsRule,
} from "@perflab/metrics/sequential";
import { Queue } from "bullmq";
import type { CellDeps } from "./context.ts";

/** What the rule reads of one cell of the run. */
export type RoundCell = {
  serverName: string;
  scenario: string;
  params: unknown;
  loadLevel: TLoadLevel;
  round: number;
  /** The cell's ops/s when it succeeded with a summary; null otherwise (a gap in its server's rounds). */
  opsRps: number | null;
  startedAt: Date | null;
  finishedAt: Date | null;
};

type Group = RoundsGroup & { workload: string; level: TLoadLevel };

/** The rule an adaptive spec asks for; null for a fixed number of rounds. */
export function roundsRuleOf(spec: Pick<TMatrixSpec, "rounds" | "adaptive">): RoundsRule | null {
  if (!spec.adaptive) return null;
  return {
    minRounds: spec.rounds,
    maxRounds: spec.adaptive.maxRounds,
    ...(spec.adaptive.maxMinutes !== undefined ? { maxMinutes: spec.adaptive.maxMinutes } : {}),
    confidence: DEFAULT_ROUNDS_RULE.confidence,
    equivalencePct: spec.adaptive.equivalencePct ?? DEFAULT_ROUNDS_RULE.equivalencePct,
  };
}

/**
 * The run's cells as the rule's groups, one per workload × load level: each server's ops/s by round,
 * round r at index r − 1 (rounds ran interleaved, which the rule pairs on).
 */
export function roundsGroups(cells: RoundCell[]): { groups: Group[]; roundsDone: number } {
  const roundsDone = cells.reduce((most, c) => Math.max(most, c.round), 0);
  const groups = new Map<string, Group>();
  for (const cell of cells) {
    const key = `${workloadKeyOf(cell.scenario, cell.params)}\u0000${loadLevelKey(cell.loadLevel)}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, workload: workloadName(cell), level: cell.loadLevel, servers: [] };
      groups.set(key, group);
    }
    let server = group.servers.find((s) => s.server === cell.serverName);
    if (!server) {
      server = { server: cell.serverName, rounds: Array.from({ length: roundsDone }, () => null) };
      group.servers.push(server);
    }
    server.rounds[cell.round - 1] = cell.opsRps;
  }
  return { groups: [...groups.values()], roundsDone };
}

/** Minutes the last round took, first start to last end: the estimate of one more. */
export function lastRoundMinutes(cells: RoundCell[], roundsDone: number): number {
  const last = cells.filter((c) => c.round === roundsDone);
  const starts = last.flatMap((c) => (c.startedAt ? [c.startedAt.getTime()] : []));
  const ends = last.flatMap((c) => (c.finishedAt ? [c.finishedAt.getTime()] : []));
  if (starts.length === 0 || ends.length === 0) return 0;
  return Math.max(0, Math.max(...ends) - Math.min(...starts)) / 60_000;
}

/** The rule's look after the run's rounds so far, as stored on the run. */
export function decideNextRound(input: {
  spec: Pick<TMatrixSpec, "rounds" | "adaptive">;
  cells: RoundCell[];
  startedAt: Date;
  now: Date;
}): TRoundsDecision | null {
  const rule = roundsRuleOf(input.spec);
  if (!rule) return null;
  const { groups, roundsDone } = roundsGroups(input.cells);
  const decision = decideRounds({
    groups,
    rule,
    roundsDone,
    elapsedMinutes: (input.now.getTime() - input.startedAt.getTime()) / 60_000,
    roundMinutes: lastRoundMinutes(input.cells, roundsDone),
  });
  // decideRounds judges each group's pairs in order, so they follow the groups.
  const labelled = groups.flatMap((g) => {
    const count = Math.max(0, g.servers.length - 1);
    return Array.from({ length: count }, () => ({ workload: g.workload, level: g.level }));
  });
  const pairs: TRoundsPair[] = decision.pairs.map((p, i) => ({ ...labelled[i]!, ...p }));
  return {
    roundsDone,
    reason: decision.stop ? decision.reason : null,
    pairs,
    decidedAt: input.now.toISOString(),
  };
}

/** The cells of the round after `roundsDone`, their indexes following the run's last. */
export function planNextRound(spec: TMatrixSpec, roundsDone: number, cellsSoFar: number): CellPlan[] {
  return expandRound(spec, roundsDone + 1, cellsSoFar);
}

async function roundCellsOf(tx: Prisma.TransactionClient, runId: string): Promise<RoundCell[]> {
  const rows = await tx.cell.findMany({
    where: { runId },
    select: {
      serverName: true,
      scenario: true,
      params: true,
      loadLevel: true,
      round: true,
      status: true,
      startedAt: true,
      finishedAt: true,
      summary: { select: { opsRps: true } },
    },
  });
  return rows.map(({ status, summary, loadLevel, ...cell }) => ({
    ...cell,
    loadLevel: loadLevel as TLoadLevel,
    opsRps: status === "succeeded" ? (summary?.opsRps ?? null) : null,
  }));
}

/**
 * At an adaptive run's last cell (inside finishCell's transaction): stores the rule's decision and,
 * when another round is needed, writes its queued cells and raises cellsTotal in the same commit, so
 * a worker dying here loses or doubles no round. Returns the run going on and the cells to enqueue,
 * or null when the run ends now (its fixed rounds done, or the rule stopped).
 */
export async function addRoundIfUndecided(
  tx: Prisma.TransactionClient,
  run: Run,
): Promise<{ run: Run; cellIds: string[] } | null> {
  // Every spec the web app or an upload stores is an object; a fixed number of rounds has no `adaptive`.
  const spec = run.spec as unknown as TMatrixSpec | null;
  if (!spec?.adaptive) return null;
  const cells = await roundCellsOf(tx, run.id);
  const decision = decideNextRound({
    spec,
    cells,
    startedAt: run.startedAt ?? run.createdAt,
    now: new Date(),
  });
  if (!decision) return null;
  const roundsDecision = decision as unknown as Prisma.InputJsonValue;
  if (decision.reason !== null) {
    await tx.run.update({ where: { id: run.id }, data: { roundsDecision } });
    return null;
  }
  const plans = planNextRound(spec, decision.roundsDone, cells.length);
  const created = await tx.cell.createManyAndReturn({
    data: plans.map((plan) => ({
      runId: run.id,
      index: plan.index,
      serverName: plan.serverName,
      scenario: plan.scenario,
      loadLevel: plan.loadLevel,
      params: plan.params as Prisma.InputJsonValue,
      round: plan.round,
      durationSeconds: spec.durationSec,
      warmupSeconds: spec.warmupSec,
      status: "queued" as const,
      driver: spec.driver,
      limits: spec.limits ?? undefined,
    })),
    select: { id: true, index: true },
  });
  const updated = await tx.run.update({
    where: { id: run.id },
    data: { roundsDecision, cellsTotal: { increment: created.length } },
  });
  return { run: updated, cellIds: created.sort((a, b) => a.index - b.index).map((c) => c.id) };
}

/**
 * Queues the new round's jobs after its commit, the job id being the cell id as everywhere. They go
 * to the head of the queue (LIFO, added last cell first so they run in index order): the run holds
 * the worker until its rule stops, as a fixed run would, instead of its next round waiting behind
 * runs queued after it, whose wait would spend its budget and set its rounds apart in time. If
 * Redis refuses, the cells stay queued in Postgres and the reconcile pass enqueues them.
 */
export async function enqueueRound(
  deps: Pick<CellDeps, "publisher" | "log">,
  runId: string,
  cellIds: string[],
): Promise<void> {
  if (cellIds.length === 0) return;
  const queue = new Queue<TCellJob>(QUEUE_CELLS, { connection: deps.publisher });
  queue.on("error", (error) => deps.log.warn({ err: error }, "redis (queue) error"));
  try {
    await queue.addBulk(
      [...cellIds].reverse().map((cellId) => ({
        name: JOB_CELL_RUN,
        data: { runId, cellId },
        opts: { ...CELL_JOB_OPTIONS, jobId: cellId, lifo: true },
      })),
    );
    deps.log.info({ runId, cells: cellIds.length }, "adaptive rounds: queued another round");
  } catch (error) {
    deps.log.warn({ err: error, runId }, "could not queue the next round; the reconcile pass will");
  } finally {
    // The connection is the caller's (shared): closing the queue leaves it open.
    await queue.close().catch(() => undefined);
  }
}
