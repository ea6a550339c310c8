import { parseParams, parseQuery } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { jsonResponse, queryOf } from "@/server/http";
import { getVerdict } from "@/server/operations/get-verdict";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** The run judged against a baseline: `?baseline=<run id>&tolerance=10`. */
export const GET = withReader<Context>(async (request, context, requestId, { workspaceId }) => {
  const { id } = parseParams(schema.GET, await context.params);
  const { baseline, tolerance } = parseQuery(schema.GET, queryOf(request));
  return jsonResponse(
    await getVerdict({
      db: getDb(),
      runId: id,
      tolerancePct: tolerance,
      workspaceId,
      ...(baseline ? { baselineRunId: baseline } : {}),
    }),
    { requestId },
  );
});
