import { createHash, randomBytes } from "node:crypto";
import { fieldErrors, ZCreateReport } from "@perflab/contracts";
import type { Db, Prisma } from "@perflab/db";
import { type CreatedReportDto, REPORT_POINTS_PER_CELL, type ReportSnapshotDto } from "../../lib/report-dto";
import { type Caller, reportMember } from "../auth";
import { AppError } from "../errors";
import { serializeReportCell, serializeRun } from "../serialize";
import { getCellPoints } from "./get-cell-points";

/** Runs still under way: a report of one would freeze half a result. */
const UNFINISHED = new Set(["queued", "ingesting", "running"]);

/** 128 random bits, base64url: 22 characters nobody can guess or enumerate. */
export function newReportSlug(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * Validates the request, reads the finished run in one repeatable-read transaction (the snapshot is
 * one consistent picture of it), then writes the report, the only row written, so a failure leaves
 * nothing behind. Sharing again what a live report already shows (same run, cells, snapshot, title,
 * description and visibility) returns that report, `created: false`, instead of a second permalink.
 */
export async function createReport({
  db,
  input,
  origin,
  caller = null,
}: {
  db: Db;
  input: unknown;
  /** The token the request authenticated with; a private report needs one. */
  caller?: Caller | null;
  /** Scheme and host the permalink is built on, e.g. http://127.0.0.1:3000. */
  origin: string;
}): Promise<{ report: CreatedReportDto; created: boolean }> {
  const parsed = ZCreateReport.safeParse(input);
  if (!parsed.success) {
    throw new AppError("invalid", "The report request is invalid.", fieldErrors(parsed.error));
  }
  const { runId, title, description, visibility } = parsed.data;
  if (visibility === "private" && !reportMember(caller)) {
    throw new AppError(
      "unauthorized",
      "A private report can be opened only with an API token, so making one needs a token too.",
      [
        {
          field: "visibility",
          message:
            "private needs an API token an admin made (sign in, or send Authorization: Bearer); one minted without a token in an open lab does not open private reports",
        },
      ],
    );
  }

  /**
   * Prisma's default (5 s, 2 s to start) is too short for what a large matrix shares: hundreds of
   * cells, each series read and cut to REPORT_POINTS_PER_CELL, then a snapshot of tens of MB
   * compared and written. A share that outlived it would be a 500 with nothing written.
   */
  const REPORT_TX = { timeout: 120_000, maxWait: 10_000 };
  const frozen = await db.$transaction(
    async (tx) => {
      const run = await tx.run.findUnique({
        where: { id: runId },
        include: { cells: { orderBy: { index: "asc" }, include: { summary: true } } },
      });
      if (!run || (caller && caller.workspaceId !== run.workspaceId)) {
        throw new AppError("not_found", `Run "${runId}" does not exist.`, [
          { field: "runId", message: "no such run" },
        ]);
      }
      // A cancelled run's running cell is still being stopped: its end is part of the picture.
      const stopping = run.cells.find((c) => UNFINISHED.has(c.status));
      if (!UNFINISHED.has(run.status) && stopping) {
        throw new AppError(
          "conflict",
          `Run "${runId}" is ${run.status} but its cell ${stopping.index} is still ${stopping.status}; share it once that cell has ended.`,
          [{ field: "runId", message: `a cell of the run is still ${stopping.status}` }],
        );
      }
      if (UNFINISHED.has(run.status)) {
        throw new AppError("conflict", `Run "${runId}" is ${run.status}; share it once it has finished.`, [
          { field: "runId", message: `the run is ${run.status}` },
        ]);
      }
      const { cells, ...rest } = run;
      const snapshot: ReportSnapshotDto = {
        version: 1,
        run: serializeRun(rest),
        cells: cells.map(serializeReportCell),
        // The curves too, so the report's "Over time" needs no live data.
        points: await getCellPoints({
          db: tx,
          cellIds: cells.map((c) => c.id),
          maxPointsPerCell: REPORT_POINTS_PER_CELL,
        }),
      };
      return {
        workspaceId: run.workspaceId,
        title: title || run.name,
        description: description || null,
        visibility,
        selection: { runId: run.id, cellIds: cells.map((c) => c.id) },
        // The DTOs are plain JSON by construction (ISO dates, numbers); Prisma's Json type can't see that.
        snapshot: snapshot as unknown as Prisma.InputJsonValue,
        // Built by this code in a fixed key order, so the same picture always hashes the same.
        snapshotSha256: createHash("sha256").update(JSON.stringify(snapshot)).digest("hex"),
      };
    },
    { isolationLevel: "RepeatableRead", ...REPORT_TX },
  );

  const { slug, created } = await db.$transaction(
    async (tx) => {
      // One share of a run at a time: a second click waits here, then (read committed: each
      // statement sees what committed before it) finds the report the first one wrote.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`report:${runId}`}, 0))`;
      const { snapshot, ...described } = frozen;
      const alike = {
        ...described,
        selection: { equals: frozen.selection },
        OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
      } satisfies Prisma.ReportWhereInput;
      // The hash, not the snapshot: a large matrix's is tens of MB, sent again to be compared.
      const existing = await tx.report.findFirst({
        where: alike,
        orderBy: { createdAt: "asc" },
        select: { slug: true },
      });
      if (existing) return { slug: existing.slug, created: false };
      // A report made before hashes were kept: compared whole, once, and given its hash.
      const { snapshotSha256, ...unhashed } = alike;
      const legacy = await tx.report.findMany({
        where: { ...unhashed, snapshotSha256: null },
        orderBy: { createdAt: "asc" },
        select: { id: true },
      });
      if (legacy.length > 0) {
        const same = await tx.report.findFirst({
          where: { id: { in: legacy.map((r) => r.id) }, snapshot: { equals: snapshot } },
          orderBy: { createdAt: "asc" },
          select: { id: true, slug: true },
        });
        if (same) {
          await tx.report.update({ where: { id: same.id }, data: { snapshotSha256 } });
          return { slug: same.slug, created: false };
        }
      }
      const report = await tx.report.create({
        data: { ...frozen, slug: newReportSlug() },
        select: { slug: true },
      });
      return { slug: report.slug, created: true };
    },
    { isolationLevel: "ReadCommitted", ...REPORT_TX },
  );

  return { report: { slug, url: new URL(`/r/${slug}`, origin).toString() }, created };
}
