import { parseQuery } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { jsonResponse, refuseNul } from "@/server/http";
import { getRunsComparison } from "@/server/operations/get-comparison";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Several runs compared as one: `?runs=<id>,<id>`, oldest first. */
export const GET = withReader(async (request, _context, requestId, { workspaceId }) => {
  // `runs=a,b` or `runs=a&runs=b`, as the /compare page takes them.
  const runs = new URL(request.url).searchParams
    .getAll("runs")
    .map((value) => refuseNul("runs", value))
    .join(",");
  const query = parseQuery(schema.GET, { runs });
  return jsonResponse(await getRunsComparison({ db: getDb(), runIds: query.runs, workspaceId }), {
    requestId,
  });
});
