import { env } from "@/env";
import { parseQuery } from "@/server/api-spec";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, queryOf, readJsonBody, requestOrigin, withProblems } from "@/server/http";
import { idempotent } from "@/server/idempotency";
import { createReport } from "@/server/operations/create-report";
import { listReports } from "@/server/operations/list-reports";
import { rateLimit } from "@/server/rate-limit";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("reports", request, caller);
  const input = await readJsonBody(request);
  const origin = requestOrigin(request);
  return idempotent({
    request,
    caller,
    requestId,
    fingerprint: JSON.stringify({ input, origin }),
    run: async () => {
      const { report, created } = await createReport({ db: getDb(), input, origin, caller });
      // 200 when the same share already has a report: its permalink, not a second one.
      return Response.json(report, {
        status: created ? 201 : 200,
        headers: { "x-request-id": requestId, location: report.url },
      });
    },
  });
});

/**
 * The reports this caller may see, newest first; `?runId=` for those of one run. A private lab
 * lists them only to a token (each report's permalink opens as its visibility says).
 */
export const GET = withReader(async (request, _context, requestId, { caller }) => {
  const query = parseQuery(schema.GET, queryOf(request));
  const reports = await listReports({
    db: getDb(),
    query,
    caller,
    access: env.PERFLAB_ACCESS,
  });
  const origin = requestOrigin(request);
  return jsonResponse(
    {
      reports: reports.map((report) => ({ ...report, url: new URL(`/r/${report.slug}`, origin).toString() })),
    },
    { requestId },
  );
});
