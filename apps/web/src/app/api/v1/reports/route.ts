import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { readJsonBody, requestOrigin, withProblems } from "@/server/http";
import { createReport } from "@/server/operations/create-report";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const input = await readJsonBody(request);
  const created = await createReport({ db: getDb(), input, origin: requestOrigin(request), caller });
  return Response.json(created, {
    status: 201,
    headers: { "x-request-id": requestId, location: created.url },
  });
});
