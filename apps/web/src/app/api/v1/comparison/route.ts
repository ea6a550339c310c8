import { fieldErrors, ZRunsComparisonQuery } from "@perflab/contracts";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { jsonResponse, refuseNul } from "@/server/http";
import { getRunsComparison } from "@/server/operations/get-comparison";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Several runs compared as one: `?runs=<id>,<id>`, oldest first. */
export const GET = withReader(async (request, _context, requestId, { workspaceId }) => {
  // `runs=a,b` or `runs=a&runs=b`, as the /compare page takes them.
  const runs = new URL(request.url).searchParams
    .getAll("runs")
    .map((value) => refuseNul("runs", value))
    .join(",");
  const parsed = ZRunsComparisonQuery.safeParse({ runs });
  if (!parsed.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsed.error));
  }
  return jsonResponse(await getRunsComparison({ db: getDb(), runIds: parsed.data.runs, workspaceId }), {
    requestId,
  });
});
