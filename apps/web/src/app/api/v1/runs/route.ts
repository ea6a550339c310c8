import { parseQuery } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { jsonResponse, queryOf } from "@/server/http";
import { listRunsPage } from "@/server/operations/list-runs";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Recent runs for CI dashboards, newest first; `nextCursor` fetches the next page. */
export const GET = withReader(async (request, _context, requestId, { workspaceId }) => {
  const query = parseQuery(schema.GET, queryOf(request));
  const page = await listRunsPage({ db: getDb(), query, workspaceId });
  return jsonResponse(page, { requestId });
});
