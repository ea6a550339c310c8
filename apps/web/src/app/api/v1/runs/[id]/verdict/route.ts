import { fieldErrors, ZVerdictQuery } from "@perflab/contracts";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { jsonResponse, queryOf } from "@/server/http";
import { getVerdict } from "@/server/operations/get-verdict";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** The run judged against a baseline: `?baseline=<run id>&tolerance=10`. */
export const GET = withReader<Context>(async (request, context, requestId, { workspaceId }) => {
  const { id } = await context.params;
  const query = queryOf(request);
  const parsed = ZVerdictQuery.safeParse(query);
  if (!parsed.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsed.error));
  }
  const { baseline, tolerance } = parsed.data;
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
