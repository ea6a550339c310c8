import type { TSession } from "@perflab/contracts";
import { env } from "@/env";
import { parseJsonBody } from "@/server/api-spec";
import {
  authenticatedToken,
  refuseCrossSite,
  serializeToken,
  TOKEN_COOKIE,
  verifySecret,
} from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, requestOrigin, withProblems } from "@/server/http";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A signed-in dashboard keeps its token at most this long (less when the token expires sooner). */
const SESSION_MAX_SECONDS = 30 * 86_400;

/** The lab's access mode and the token this request authenticated with, if any. */
export const GET = withProblems(async (request, _context, requestId) => {
  const token = await authenticatedToken(getDb(), request, env.PERFLAB_ACCESS);
  const session: TSession = { access: env.PERFLAB_ACCESS, token: token ? serializeToken(token) : null };
  return jsonResponse(session, { requestId });
});

/**
 * Signs the dashboard in with a token: checked, then kept in an HttpOnly, SameSite=Strict cookie
 * (Secure over https), so page scripts never read it and other sites cannot send it.
 */
export const POST = withProblems(async (request, _context, requestId) => {
  // Another site must not sign this browser in with a token of its choosing.
  refuseCrossSite(request);
  const signIn = parseJsonBody(schema.POST, await readJsonBody(request), "The sign-in request is invalid.");
  const token = await verifySecret(getDb(), signIn.token, "token", env.PERFLAB_ACCESS);
  const untilExpiry = token.expiresAt
    ? Math.floor((token.expiresAt.getTime() - Date.now()) / 1000)
    : Infinity;
  const maxAge = Math.max(1, Math.min(SESSION_MAX_SECONDS, untilExpiry));
  const secure = requestOrigin(request).startsWith("https:") ? "; Secure" : "";
  const session: TSession = { access: env.PERFLAB_ACCESS, token: serializeToken(token) };
  const response = jsonResponse(session, { requestId });
  response.headers.append(
    "set-cookie",
    `${TOKEN_COOKIE}=${encodeURIComponent(signIn.token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
  );
  return response;
});

/** Signs the dashboard out (the token itself stays valid: revoke it to stop it everywhere). */
export const DELETE = withProblems(async (request, _context, requestId) => {
  refuseCrossSite(request);
  const response = new Response(null, { status: 204, headers: { "x-request-id": requestId } });
  response.headers.append("set-cookie", `${TOKEN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
  return response;
});
