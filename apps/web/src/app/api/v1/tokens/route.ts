import { env } from "@/env";
import { authorizeAdmin } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import { createToken, listTokens } from "@/server/operations/tokens";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Managing tokens is a change to the lab's access: in a lab that needs tokens, an admin token. */
export const GET = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeAdmin(getDb(), request, env.PERFLAB_ACCESS);
  return jsonResponse({ tokens: await listTokens({ db: getDb(), caller }) }, { requestId });
});

export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeAdmin(getDb(), request, env.PERFLAB_ACCESS);
  const created = await createToken({ db: getDb(), caller, input: await readJsonBody(request) });
  return Response.json(created, {
    status: 201,
    // The secret must not linger in a cache anywhere.
    headers: { "x-request-id": requestId, "cache-control": "no-store" },
  });
});
