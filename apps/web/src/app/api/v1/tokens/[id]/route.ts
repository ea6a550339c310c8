import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authorizeWrite, requireAdmin } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { revokeToken } from "@/server/operations/tokens";
import { rateLimit } from "@/server/rate-limit";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/**
 * Revokes the token (it stays listed as revoked). A token may revoke itself (a leaked CI secret
 * should not wait for an admin); any other takes an admin's, in every lab.
 */
export const DELETE = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("tokens", request, caller);
  const { id } = parseParams(schema.DELETE, await context.params);
  if (caller?.tokenId !== id) requireAdmin(caller);
  return jsonResponse(await revokeToken({ db: getDb(), caller, id }), { requestId });
});
