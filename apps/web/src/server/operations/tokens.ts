import { fieldErrors, type TCreatedToken, type TTokenDto, ZCreateToken } from "@perflab/contracts";
import { createApiToken, type Db, ensureDefaultWorkspace } from "@perflab/db";
import { type Access, type Caller, requireAdmin, serializeToken, tokensRequired } from "../auth";
import { AppError } from "../errors";

/** The workspace a token request is about: the caller's, or the only one of an open lab. */
export async function workspaceOf(db: Db, caller: Caller | null): Promise<string> {
  return caller ? caller.workspaceId : (await ensureDefaultWorkspace(db)).id;
}

/** The workspace's tokens, newest first: names, shown parts and dates, never a secret. */
export async function listTokens({ db, caller }: { db: Db; caller: Caller | null }): Promise<TTokenDto[]> {
  const workspaceId = await workspaceOf(db, caller);
  const tokens = await db.apiToken.findMany({ where: { workspaceId }, orderBy: { createdAt: "desc" } });
  const now = new Date();
  return tokens.map((t) => serializeToken(t, now));
}

/**
 * A new token; its secret is in this response only. An admin mints any; in a lab that needs tokens
 * no one else does; in an open lab anyone mints member tokens, recorded as minted anonymously
 * (valid only while the lab stays open): an admin token there would hand out the lab.
 */
export async function createToken({
  db,
  caller,
  access,
  input,
}: {
  db: Db;
  caller: Caller | null;
  access: Access;
  input: unknown;
}): Promise<TCreatedToken> {
  const admin = caller?.role === "admin" ? caller : null;
  if (!admin && tokensRequired(access)) requireAdmin(caller);
  const parsed = ZCreateToken.safeParse(input);
  if (!parsed.success) {
    throw new AppError("invalid", "The token request is invalid.", fieldErrors(parsed.error));
  }
  const { name, expiresInDays, role } = parsed.data;
  if (role === "admin" && !admin) {
    throw new AppError("forbidden", "Minting an admin token needs an admin token.", [
      {
        field: "role",
        message: `"admin" needs an admin token (${caller ? `token "${caller.name}" is a member's` : "none was sent"}); without one an open lab mints member tokens`,
      },
    ]);
  }
  const { token, secret } = await createApiToken(db, {
    workspaceId: await workspaceOf(db, caller),
    name,
    expiresAt: expiresInDays ? new Date(Date.now() + expiresInDays * 86_400_000) : null,
    role,
    mintedAnonymously: !admin,
  });
  return { token: serializeToken(token), secret };
}

/**
 * Revokes a token: it stops authenticating at once (also for a dashboard signed in with it), and
 * stays listed, with the runs it made still pointing at it. Revoking twice changes nothing.
 */
export async function revokeToken({
  db,
  caller,
  id,
}: {
  db: Db;
  caller: Caller | null;
  id: string;
}): Promise<TTokenDto> {
  const workspaceId = await workspaceOf(db, caller);
  const token = await db.apiToken.findFirst({ where: { id, workspaceId } });
  if (!token)
    throw new AppError("not_found", `Token "${id}" does not exist.`, [
      { field: "id", message: "names no token" },
    ]);
  if (token.revokedAt) return serializeToken(token);
  await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return serializeToken(await db.apiToken.findUniqueOrThrow({ where: { id } }));
}
