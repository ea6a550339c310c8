import { fieldErrors, ZRunListQuery } from "@perflab/contracts";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { jsonResponse, queryOf } from "@/server/http";
import { listRunsPage } from "@/server/operations/list-runs";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Recent runs for CI dashboards, newest first; `nextCursor` fetches the next page. */
export const GET = withReader(async (request, _context, requestId, { workspaceId }) => {
  const params = queryOf(request);
  const parsed = ZRunListQuery.safeParse(params);
  if (!parsed.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsed.error));
  }
  const page = await listRunsPage({ db: getDb(), query: parsed.data, workspaceId });
  return jsonResponse(page, { requestId });
});
