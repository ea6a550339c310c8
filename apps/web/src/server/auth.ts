import { TOKEN_PATTERN, type TTokenDto, type TTokenRole } from "@perflab/contracts";
import { type ApiToken, type Db, hashToken } from "@perflab/db";
import { TOKEN_COOKIE } from "../lib/sign-in";
import { AppError } from "./errors";
import { requestOrigin } from "./http";

export { TOKEN_COOKIE };

/**
 * Who may do what (docs/security.md): `open`, anyone but for managing tokens (one person on their own
 * machine); `token`, changes need a token; `private`, reads too, each token seeing its own workspace
 * (report permalinks that are public or unlisted stay open).
 */
export type Access = "open" | "token" | "private";

/** Whether changes need a token: in every lab but an open one. */
export const tokensRequired = (access: Access) => access !== "open";

/** The token a request authenticated with. */
export interface Caller {
  tokenId: string;
  workspaceId: string;
  name: string;
  role: TTokenRole;
  /** Minted by an open lab's anyone: it works only while the lab is open, and opens no private report. */
  mintedAnonymously: boolean;
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
  access: Access,
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
  if (token.mintedAnonymously && tokensRequired(access)) {
    const keep = `; an admin can keep it (pnpm -s token keep ${token.id}) or give you another`;
    throw unauthorized(
      `token "${token.name}" was minted without a token while the lab was open${keep}`,
      field,
    );
  }
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
export async function authenticate(db: Db, request: Request, access: Access): Promise<Caller | null> {
  const token = await authenticatedToken(db, request, access);
  return token && callerOf(token);
}

/**
 * Who is reading, for routes that anyone may read but that show more to a token holder (reports
 * and their lists): as `authenticate`, except that a dashboard cookie whose token was revoked or
 * expired reads as no one, as the pages treat it, so a stale sign-in does not turn a public
 * report's JSON or CSV into a 401. A bad Authorization header is still refused: a CI job should
 * hear that its token no longer works.
 */
export async function authenticateReader(db: Db, request: Request, access: Access): Promise<Caller | null> {
  const credential = credentialOf(request);
  if (!credential) return null;
  try {
    return callerOf(await verifySecret(db, credential.secret, credential.field, access));
  } catch (error) {
    if (credential.field === "cookie" && error instanceof AppError && error.code === "unauthorized")
      return null;
    throw error;
  }
}

/** The stored token a request authenticated with, or null without a credential. */
export async function authenticatedToken(db: Db, request: Request, access: Access): Promise<ApiToken | null> {
  const credential = credentialOf(request);
  return credential ? verifySecret(db, credential.secret, credential.field, access) : null;
}

export const callerOf = (token: ApiToken): Caller => ({
  tokenId: token.id,
  workspaceId: token.workspaceId,
  name: token.name,
  role: token.role,
  mintedAnonymously: token.mintedAnonymously,
});

/**
 * The caller as a member of its workspace for private reports: a token an open lab's anyone
 * minted reads as no one there, or minting one would open them to anyone.
 */
export const reportMember = (caller: Caller | null): Caller | null =>
  caller && !caller.mintedAnonymously ? caller : null;

/**
 * Refuses a change that a page of another site asked a browser to make: a form or `fetch` a browser
 * sends cross-site without a preflight (text/plain, a form post) still carries the user's network
 * position, and an open lab on 127.0.0.1 would otherwise queue load runs for any page its user
 * visits. Browsers say where a request comes from (`Origin`, `Sec-Fetch-Site`); clients that are
 * not browsers (curl, CI, the perflab CLI) send neither and pass.
 */
export function refuseCrossSite(request: Request): void {
  const origin = request.headers.get("origin");
  const own = new URL(requestOrigin(request)).host;
  let from: string | null = null;
  if (origin !== null) {
    let host: string | null = null;
    try {
      host = origin === "null" ? null : new URL(origin).host;
    } catch {
      host = null;
    }
    if (host !== own) from = origin;
  } else if (request.headers.get("sec-fetch-site") === "cross-site") {
    from = "another site";
  }
  if (from === null) return;
  const message = `a change from ${from === "another site" ? from : `"${from}"`} is refused: this lab takes changes from its own pages (${own}) and from clients that send no Origin (curl, CI, the perflab CLI)`;
  throw new AppError("forbidden", "Refused a change asked for by another site.", [
    { field: "origin", message },
  ]);
}
/**
 * For requests that change something: the caller, or null in an open lab. In a lab with
 * `PERFLAB_ACCESS=token` or `private` a request without a token is refused with a 401 before
 * anything is read or written.
 */
export async function authorizeWrite(db: Db, request: Request, access: Access): Promise<Caller | null> {
  refuseCrossSite(request);
  const caller = await authenticate(db, request, access);
  if (!caller && tokensRequired(access)) {
    const message =
      "this lab needs an API token: send Authorization: Bearer <token>, or sign in on the dashboard";
    throw new AppError("unauthorized", "This lab needs an API token to change anything.", [
      { field: "authorization", message },
    ]);
  }
  return caller;
}

/**
 * For listing and revoking tokens, in every lab: an admin token (401 without a token, 403 with a
 * member's). An open lab's anyone may mint member tokens (operations/tokens.ts), no more.
 */
export async function authorizeAdmin(db: Db, request: Request, access: Access): Promise<Caller> {
  const caller = await authorizeWrite(db, request, access);
  return requireAdmin(caller);
}

/** The caller when it holds an admin token: a 401 without a token, a 403 with a member's. */
export function requireAdmin(caller: Caller | null): Caller {
  if (!caller) {
    const message =
      "managing tokens needs an admin token: send Authorization: Bearer <token>, or sign in on the dashboard (the first comes from pnpm -s token create on the lab's machine)";
    throw new AppError("unauthorized", "Managing tokens needs an admin token.", [
      { field: "authorization", message },
    ]);
  }
  if (caller.role !== "admin") {
    throw new AppError("forbidden", "Managing tokens needs an admin token.", [
      {
        field: "authorization",
        message: `token "${caller.name}" is a member token: listing, creating and revoking other tokens needs an admin token`,
      },
    ]);
  }
  return caller;
}

/**
 * For reads (runs, comparisons, exports, servers, workers, lists of reports): who reads, as
 * `authenticateReader` has it (a lapsed dashboard cookie reads as no one). In a private lab no one
 * is refused with the 401 a change without a token gets, before anything is read.
 */
export async function authorizeRead(db: Db, request: Request, access: Access): Promise<Caller | null> {
  const caller = await authenticateReader(db, request, access);
  if (!caller && access === "private") {
    const message =
      "this lab's results are private: send Authorization: Bearer <token>, or sign in on the dashboard";
    throw new AppError("unauthorized", "This lab needs an API token to read anything.", [
      { field: "authorization", message },
    ]);
  }
  return caller;
}

/**
 * The workspace whose runs a reader may see, or null for every run. Only a private lab draws the
 * line: where reading is open, a token holder scoped to its workspace would see less than anyone.
 */
export function readScope(caller: Caller | null, access: Access): string | null {
  return access === "private" && caller ? caller.workspaceId : null;
}

export function serializeToken(token: ApiToken, now = new Date()): TTokenDto {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    role: token.role,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: iso(token.lastUsedAt),
    expiresAt: iso(token.expiresAt),
    revokedAt: iso(token.revokedAt),
    state: tokenState(token, now),
  };
}
