import {
  fieldErrors,
  type TRegisteredServer,
  type TRegisteredServerDto,
  ZRegisteredServerInput,
} from "@perflab/contracts";
import type { Db, Prisma, ServerDefinition } from "@perflab/db";
import type { Caller } from "../auth";
import { AppError } from "../errors";
import { workspaceOf } from "./tokens";

type Params = { db: Db; caller: Caller | null };

/** A row as the API answers it. */
export function serializeServer(row: ServerDefinition): TRegisteredServerDto {
  return {
    id: row.id,
    definition: row.manifest as TRegisteredServer,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The caller's workspace's registered servers, by name. */
export async function listRegisteredServers({ db, caller }: Params): Promise<ServerDefinition[]> {
  const workspaceId = await workspaceOf(db, caller);
  return db.serverDefinition.findMany({
    where: { workspaceId, source: "registered" },
    orderBy: { name: "asc" },
  });
}

/** One of the caller's workspace's servers; another workspace's is "not found", as a missing one. */
export async function getRegisteredServer({ db, caller, id }: Params & { id: string }) {
  const workspaceId = await workspaceOf(db, caller);
  const row = await db.serverDefinition.findFirst({ where: { id, workspaceId, source: "registered" } });
  if (!row) {
    throw new AppError("not_found", "No registered server of this workspace has this id.", [
      { field: "id", message: "no registered server of this workspace has this id" },
    ]);
  }
  return row;
}

/**
 * Validates a definition: its fields (named when wrong), a name the lab's own servers do not use,
 * and an admin's token for a command, which runs on the lab's machine.
 */
function validDefinition(input: unknown, caller: Caller | null, labNames: string[]): TRegisteredServer {
  const parsed = ZRegisteredServerInput.safeParse(input);
  if (!parsed.success)
    throw new AppError("invalid", "The server definition is invalid.", fieldErrors(parsed.error));
  const definition = parsed.data;
  if (definition.kind === "command" && caller?.role !== "admin") {
    throw new AppError("forbidden", "Registering a command takes an admin token.", [
      {
        field: "kind",
        message:
          "a \"command\" server runs its program on the worker's machine with the worker's rights: only an admin token may register, change or remove one",
      },
    ]);
  }
  if (labNames.includes(definition.name)) {
    throw new AppError("conflict", "The name is taken.", [
      { field: "name", message: `"${definition.name}" is one of the lab's own servers: choose another name` },
    ]);
  }
  return definition;
}

const nameTaken = (name: string) =>
  new AppError("conflict", "The name is taken.", [
    { field: "name", message: `this workspace already has a server named "${name}"` },
  ]);

function columns(definition: TRegisteredServer) {
  return {
    name: definition.name,
    language: definition.language,
    runtime: definition.runtime,
    sdkName: definition.sdk.name,
    sdkVersion: definition.sdk.version,
    manifest: definition as unknown as Prisma.InputJsonValue,
    image: definition.kind === "image" ? definition.image : null,
    command: definition.kind === "command" ? JSON.stringify(definition.command) : null,
  };
}

/** A unique-name violation becomes a 409 naming `name`; anything else is rethrown. */
function conflictOnName(name: string) {
  return (error: unknown): never => {
    if ((error as { code?: string }).code === "P2002") throw nameTaken(name);
    throw error;
  };
}

export async function createRegisteredServer({
  db,
  caller,
  input,
  labNames,
}: Params & { input: unknown; labNames: string[] }): Promise<TRegisteredServerDto> {
  const definition = validDefinition(input, caller, labNames);
  const workspaceId = await workspaceOf(db, caller);
  const row = await db.serverDefinition
    .create({ data: { workspaceId, source: "registered", ...columns(definition) } })
    .catch(conflictOnName(definition.name));
  return serializeServer(row);
}

/**
 * PUT replaces the definition; PATCH merges the fields sent over the stored ones (one level deep)
 * and validates the result as a whole. Cells already run keep what they recorded.
 */
export async function updateRegisteredServer({
  db,
  caller,
  id,
  input,
  labNames,
  merge,
}: Params & {
  id: string;
  input: unknown;
  labNames: string[];
  merge: boolean;
}): Promise<TRegisteredServerDto> {
  const existing = await getRegisteredServer({ db, caller, id });
  requireAdminForCommand(existing, caller);
  const body =
    merge && input && typeof input === "object" && !Array.isArray(input)
      ? { ...(existing.manifest as object), ...input }
      : input;
  const definition = validDefinition(body, caller, labNames);
  const row = await db.serverDefinition
    .update({ where: { id: existing.id }, data: columns(definition) })
    .catch(conflictOnName(definition.name));
  return serializeServer(row);
}

export async function deleteRegisteredServer({ db, caller, id }: Params & { id: string }): Promise<void> {
  const existing = await getRegisteredServer({ db, caller, id });
  requireAdminForCommand(existing, caller);
  // Cells that ran it keep their server's name and build; their link to the definition is cleared.
  await db.serverDefinition.delete({ where: { id: existing.id } });
}

function requireAdminForCommand(row: ServerDefinition, caller: Caller | null): void {
  if ((row.manifest as { kind?: string }).kind === "command" && caller?.role !== "admin") {
    throw new AppError("forbidden", "Changing a command server takes an admin token.", [
      { field: "kind", message: 'only an admin token may change or remove a "command" server' },
    ]);
  }
}
