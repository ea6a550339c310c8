import { createHash } from "node:crypto";
import {
  fieldErrors,
  isScenarioId,
  storedScriptId,
  type TK6ScriptDto,
  type TK6ScriptWithSource,
  ZCreateK6Script,
} from "@perflab/contracts";
import type { Db } from "@perflab/db";
import type { Caller } from "../auth";
import { AppError } from "../errors";
import { inspectK6Script } from "./inspect-k6-script";
import { workspaceOf } from "./tokens";

type Row = { id: string; name: string; sha256: string; source: string; createdAt: Date };

const dtoOf = (row: Row): TK6ScriptDto => ({
  id: row.id,
  name: row.name,
  sha256: row.sha256,
  bytes: Buffer.byteLength(row.source),
  createdAt: row.createdAt.toISOString(),
});

const notFound = (id: string) =>
  new AppError("not_found", `No k6 script ${id} in this workspace.`, [
    { field: "id", message: "is not a script of this workspace" },
  ]);

/** The workspace's scripts, newest first (without their sources). */
export async function listK6Scripts({
  db,
  caller,
}: {
  db: Db;
  caller: Caller | null;
}): Promise<TK6ScriptDto[]> {
  const workspaceId = await workspaceOf(db, caller);
  const rows = await db.k6Script.findMany({ where: { workspaceId }, orderBy: { createdAt: "desc" } });
  return rows.map(dtoOf);
}

/** Stores a script k6 accepts, in the caller's workspace; a name already taken there is a 409. */
export async function createK6Script(input: {
  db: Db;
  caller: Caller | null;
  body: unknown;
}): Promise<TK6ScriptDto> {
  const parsed = ZCreateK6Script.safeParse(input.body);
  if (!parsed.success) throw new AppError("invalid", "The script is invalid.", fieldErrors(parsed.error));
  const { name, source } = parsed.data;
  await inspectK6Script(source);
  const workspaceId = await workspaceOf(input.db, input.caller);
  const sha256 = createHash("sha256").update(source).digest("hex");
  const row = await input.db.k6Script
    .create({ data: { workspaceId, name, source, sha256 } })
    .catch((error: { code?: string }) => {
      if (error.code !== "P2002") throw error;
      throw new AppError("conflict", `A script named "${name}" exists in this workspace.`, [
        { field: "name", message: "is taken in this workspace: remove the old script first" },
      ]);
    });
  return dtoOf(row);
}

/** One script of the caller's workspace, with its source; another workspace's is not found. */
export async function getK6Script(input: {
  db: Db;
  caller: Caller | null;
  id: string;
}): Promise<TK6ScriptWithSource> {
  const workspaceId = await workspaceOf(input.db, input.caller);
  const row = await input.db.k6Script.findFirst({ where: { id: input.id, workspaceId } });
  if (!row) throw notFound(input.id);
  return { ...dtoOf(row), source: row.source };
}

/** Removes a script of the caller's workspace; cells queued with it then fail, saying so. */
export async function deleteK6Script(input: { db: Db; caller: Caller | null; id: string }): Promise<void> {
  const workspaceId = await workspaceOf(input.db, input.caller);
  const { count } = await input.db.k6Script.deleteMany({ where: { id: input.id, workspaceId } });
  if (count === 0) throw notFound(input.id);
}

/**
 * The stored scripts a matrix's scenarios name that the workspace does not have: errors at
 * `scenarios.N.params.scriptId`, so a run never queues a cell for another workspace's script.
 */
export async function missingScripts(
  db: Db,
  workspaceId: string,
  scenarios: readonly { id: string; params?: unknown }[],
): Promise<{ field: string; message: string }[]> {
  const named = scenarios.flatMap((s, i) => {
    const id = isScenarioId(s.id) ? storedScriptId(s.id, s.params ?? {}) : undefined;
    return id === undefined ? [] : [{ i, id }];
  });
  if (named.length === 0) return [];
  const found = await db.k6Script.findMany({
    where: { workspaceId, id: { in: named.map((n) => n.id) } },
    select: { id: true },
  });
  const have = new Set(found.map((f) => f.id));
  return named
    .filter((n) => !have.has(n.id))
    .map((n) => ({
      field: `scenarios.${n.i}.params.scriptId`,
      message: "is not a stored script of this workspace (POST /api/v1/scripts, `perflab script list`)",
    }));
}
