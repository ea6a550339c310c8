import { env } from "@/env";
import { authorizeAdmin, authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import { idempotent } from "@/server/idempotency";
import { createToken, listTokens } from "@/server/operations/tokens";
import { rateLimit } from "@/server/rate-limit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Listing tokens takes an admin token, in every lab. */
export const GET = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeAdmin(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("tokens", request, caller);
  return jsonResponse({ tokens: await listTokens({ db: getDb(), caller }) }, { requestId });
});

/** Minting: an admin mints any token; an open lab's anyone member tokens only (createToken). */
export const POST = withProblems(async (request, _context, requestId) => {
  const access = env.PERFLAB_ACCESS;
  const caller = await authorizeWrite(getDb(), request, access);
  await rateLimit("tokens", request, caller);
  const input = await readJsonBody(request);
  return idempotent({
    request,
    caller,
    requestId,
    fingerprint: JSON.stringify(input),
    run: async () => {
      const created = await createToken({ db: getDb(), caller, access, input });
      return Response.json(created, {
        status: 201,
        // The secret must not linger in a cache anywhere.
        headers: { "x-request-id": requestId, "cache-control": "no-store" },
      });
    },
  });
});
