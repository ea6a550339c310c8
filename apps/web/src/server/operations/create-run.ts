import {
  type CatalogView,
  createMatrixSpecSchema,
  type DriverId,
  expandMatrix,
  fieldErrors,
  type TMatrixSpec,
} from "@perflab/contracts";
import { type Db, ensureDefaultWorkspace, type Prisma } from "@perflab/db";
import type { CreatedRunDto } from "../../lib/dto";
import type { Caller } from "../auth";
import { AppError } from "../errors";
import { type CellQueue, enqueueCells } from "../queue";
import { assertBaselineExists } from "./baseline";
import { missingScripts } from "./k6-scripts";

export type CreateRunParams = {
  db: Db;
  queue: CellQueue;
  catalog: CatalogView;
  input: unknown;
  source: "ui" | "api";
  /** The token the request authenticated with: the run is recorded as its. */
  caller?: Caller | null;
  /** The workspace's registered servers the matrix may name (web server/catalog.ts). */
  registered?: RegisteredCells;
};

/** By server name: the definition a cell records, and the driver its kind runs under (null: the run's). */
export type RegisteredCells = Record<string, { id: string; driver: DriverId | null }>;

function defaultName(spec: TMatrixSpec): string {
  const scenarios = spec.scenarios.map((s) => s.id).join(", ");
  return `${spec.servers.join(" vs ")} · ${scenarios}`;
}

/**
 * Validates a matrix, writes the run and its queued cells in one transaction, then enqueues one
 * job per cell. When Redis refuses the jobs the run is deleted again: nothing half-written stays.
 */
export async function createRun({
  db,
  queue,
  catalog,
  input,
  source,
  caller = null,
  registered = {},
}: CreateRunParams): Promise<CreatedRunDto> {
  const parsed = createMatrixSpecSchema(catalog).safeParse(input);
  if (!parsed.success) {
    throw new AppError("invalid", "The matrix spec is invalid.", fieldErrors(parsed.error));
  }
  const spec = parsed.data;
  if (spec.baselineRunId !== undefined) await assertBaselineExists(db, spec.baselineRunId, "baselineRunId");
  const plans = expandMatrix(spec);
  const workspace = caller ? { id: caller.workspaceId } : await ensureDefaultWorkspace(db);
  // A stored script is run only by its own workspace's runs.
  const missing = await missingScripts(db, workspace.id, spec.scenarios);
  if (missing.length > 0) throw new AppError("invalid", "The matrix spec is invalid.", missing);
  const pr = spec.git?.pr && /^\d+$/.test(spec.git.pr) ? Number(spec.git.pr) : null;

  const { run, cells } = await db.$transaction(async (tx) => {
    const run = await tx.run.create({
      data: {
        workspaceId: workspace.id,
        apiTokenId: caller?.tokenId ?? null,
        source,
        status: "queued",
        name: spec.name || defaultName(spec),
        // The parsed spec is plain JSON (zod output of JSON input); Prisma's Json type can't see that.
        spec: spec as unknown as Prisma.InputJsonValue,
        gitRepo: spec.git?.repo ?? null,
        gitBranch: spec.git?.branch ?? null,
        gitCommit: spec.git?.commit ?? null,
        gitPr: pr,
        baselineRunId: spec.baselineRunId ?? null,
        cellsTotal: plans.length,
      },
    });
    const cells = await tx.cell.createManyAndReturn({
      data: plans.map((plan) => ({
        runId: run.id,
        index: plan.index,
        serverName: plan.serverName,
        serverDefinitionId: registered[plan.serverName]?.id ?? null,
        scenario: plan.scenario,
        loadLevel: plan.loadLevel,
        params: plan.params as Prisma.InputJsonValue,
        round: plan.round,
        durationSeconds: spec.durationSec,
        warmupSeconds: spec.warmupSec,
        status: "queued" as const,
        driver: registered[plan.serverName]?.driver ?? spec.driver,
        limits: spec.limits ?? undefined,
      })),
      select: { id: true, index: true, serverName: true, scenario: true, round: true },
    });
    return { run, cells: cells.sort((a, b) => a.index - b.index) };
  });

  try {
    await enqueueCells(
      queue,
      cells.map((cell) => ({ runId: run.id, cellId: cell.id })),
    );
  } catch (error) {
    const removed = await db.run.delete({ where: { id: run.id } }).then(
      () => true,
      (deleteError: unknown) => {
        console.error(`[create-run] run ${run.id} could not be removed either:`, deleteError);
        return false;
      },
    );
    if (removed) {
      console.error(`[create-run] enqueue failed, run ${run.id} removed:`, error);
      throw new AppError(
        "unavailable",
        "The job queue is unavailable; the run was not created. Try again shortly.",
      );
    }
    // Neither queued nor removed: the run stands, and the workers' reconciler queues its cells once
    // Redis answers. Saying "not created" would be false, and a client retrying would run it twice.
    console.error(`[create-run] enqueue failed, run ${run.id} kept for the reconciler to queue:`, error);
  }

  return {
    runId: run.id,
    cells: cells.map((cell) => {
      const level = plans[cell.index]!.loadLevel;
      return "rate" in level
        ? { ...cell, vus: null, rate: level.rate, maxVus: level.maxVus }
        : { ...cell, vus: level.vus, rate: null, maxVus: null };
    }),
  };
}
