import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { revokeToken } from "@/server/operations/tokens";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Revokes the token (it stays listed as revoked). */
export const DELETE = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = await context.params;
  return jsonResponse(await revokeToken({ db: getDb(), caller, id }), { requestId });
});
