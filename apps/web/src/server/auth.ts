import { TOKEN_PATTERN, type TTokenDto } from "@perflab/contracts";
import { type ApiToken, type Db, hashToken } from "@perflab/db";
import { AppError } from "./errors";

/** The dashboard's sign-in: the token itself, in an HttpOnly, SameSite=Strict cookie. */
export const TOKEN_COOKIE = "perflab_token";

export type Access = "open" | "token";

/** The token a request authenticated with. */
export interface Caller {
  tokenId: string;
  workspaceId: string;
  name: string;
}

/** lastUsedAt is written at most this often per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const WHERE: Record<string, string> = {
  authorization: "the Authorization header",
  cookie: "the dashboard's sign-in",
  token: "the sign-in form",
};

const unauthorized = (message: string, field = "authorization") =>
  new AppError("unauthorized", `API token refused (${WHERE[field] ?? field}): ${message}.`, [
    { field, message },
  ]);

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * The credential a request carries and where: `Authorization: Bearer <token>` (CI, the CLI), else
 * the dashboard's cookie. An Authorization header of another scheme is refused, not ignored: a CI
 * job that sends the wrong one should hear so rather than act anonymously.
 */
export function credentialOf(request: Request): { secret: string; field: string } | null {
  const header = request.headers.get("authorization");
  if (header !== null) {
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) throw unauthorized('must be "Bearer " followed by an API token');
    return { secret: match[1], field: "authorization" };
  }
  const cookie = cookieValue(request.headers.get("cookie"), TOKEN_COOKIE);
  return cookie ? { secret: cookie, field: "cookie" } : null;
}

/** Why a stored token does not authenticate now, if it does not. */
export function tokenState(token: Pick<ApiToken, "revokedAt" | "expiresAt">, now = new Date()) {
  if (token.revokedAt) return "revoked" as const;
  if (token.expiresAt && token.expiresAt <= now) return "expired" as const;
  return "active" as const;
}

/** The token behind a secret, checked; a 401 naming where the secret came from otherwise. */
export async function verifySecret(
  db: Db,
  secret: string,
  field: string,
  now = new Date(),
): Promise<ApiToken> {
  // The dashboard's cookie outlived its token: say how to get out of it.
  const hint = field === "cookie" ? "; sign in again, or sign out" : "";
  if (!TOKEN_PATTERN.test(secret)) throw unauthorized(`is not a perflab API token (plab_…)${hint}`, field);
  const token = await db.apiToken.findUnique({ where: { tokenHash: hashToken(secret) } });
  if (!token) throw unauthorized(`is not a token of this lab${hint}`, field);
  const state = tokenState(token, now);
  if (state === "revoked") throw unauthorized(`token "${token.name}" was revoked${hint}`, field);
  if (state === "expired") throw unauthorized(`token "${token.name}" expired${hint}`, field);
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // Conditional, so concurrent requests write it once; a failure here must not fail the request.
    await db.apiToken
      .updateMany({
        where: {
          id: token.id,
          OR: [
            { lastUsedAt: null },
            { lastUsedAt: { lte: new Date(now.getTime() - LAST_USED_RESOLUTION_MS) } },
          ],
        },
        data: { lastUsedAt: now },
      })
      .catch(() => undefined);
  }
  return token;
}

/**
 * Who is asking: the token's caller, or null for a request without a credential. A credential that
 * is sent is always checked, in either access mode.
 */
export async function authenticate(db: Db, request: Request): Promise<Caller | null> {
  const token = await authenticatedToken(db, request);
  return token && callerOf(token);
}

/** The stored token a request authenticated with, or null without a credential. */
export async function authenticatedToken(db: Db, request: Request): Promise<ApiToken | null> {
  const credential = credentialOf(request);
  return credential ? verifySecret(db, credential.secret, credential.field) : null;
}

export const callerOf = (token: ApiToken): Caller => ({
  tokenId: token.id,
  workspaceId: token.workspaceId,
  name: token.name,
});

/**
 * For requests that change something: the caller, or null in an open lab. In a lab with
 * `PERFLAB_ACCESS=token` a request without a token is refused with a 401 before anything is read
 * or written.
 */
export async function authorizeWrite(db: Db, request: Request, access: Access): Promise<Caller | null> {
  const caller = await authenticate(db, request);
  if (!caller && access === "token") {
    const message =
      "this lab needs an API token: send Authorization: Bearer <token>, or sign in on the dashboard";
    throw new AppError("unauthorized", "This lab needs an API token to change anything.", [
      { field: "authorization", message },
    ]);
  }
  return caller;
}

export function serializeToken(token: ApiToken, now = new Date()): TTokenDto {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: iso(token.lastUsedAt),
    expiresAt: iso(token.expiresAt),
    revokedAt: iso(token.revokedAt),
    state: tokenState(token, now),
  };
}
