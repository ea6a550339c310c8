import { env } from "@/env";
import { authorizeRead, authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import { createK6Script, listK6Scripts } from "@/server/operations/k6-scripts";
import { rateLimit } from "@/server/rate-limit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeRead(getDb(), request, env.PERFLAB_ACCESS);
  return jsonResponse({ scripts: await listK6Scripts({ db: getDb(), caller }) }, { requestId });
});

/** Each store runs `k6 inspect`: limited as uploads are. */
export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("uploads", request, caller);
  const body = await readJsonBody(request);
  const created = await createK6Script({ db: getDb(), caller, body });
  return jsonResponse(created, { status: 201, requestId });
});
