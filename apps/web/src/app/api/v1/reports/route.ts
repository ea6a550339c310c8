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
  const { report, created } = await createReport({
    db: getDb(),
    input,
    origin: requestOrigin(request),
    caller,
  });
  // 200 when the same share already has a report: its permalink, not a second one.
  return Response.json(report, {
    status: created ? 201 : 200,
    headers: { "x-request-id": requestId, location: report.url },
  });
});
