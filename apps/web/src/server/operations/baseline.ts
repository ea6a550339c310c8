import type { Db } from "@perflab/db";
import { AppError } from "../errors";

/** A run named as a baseline must exist; the field that named it is in the 422. */
export async function assertBaselineExists(db: Db, runId: string, field: string): Promise<void> {
  const found = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!found) {
    throw new AppError("invalid", "The baseline run does not exist.", [
      { field, message: `no run has the id "${runId}"` },
    ]);
  }
}
