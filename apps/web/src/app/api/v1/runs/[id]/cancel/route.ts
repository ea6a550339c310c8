import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { cancelRun } from "@/server/operations/cancel-run";
import { getCellQueue } from "@/server/queue";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const POST = withProblems<Context>(async (request, context, requestId) => {
  await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = await context.params;
  const result = await cancelRun({ db: getDb(), queue: getCellQueue(), runId: id });
  return jsonResponse(result, { status: 202, requestId });
});
