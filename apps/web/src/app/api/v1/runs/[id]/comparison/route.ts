import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { getComparison } from "@/server/operations/get-comparison";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withProblems<Context>(async (_request, context, requestId) => {
  const { id } = await context.params;
  return jsonResponse(await getComparison({ db: getDb(), runId: id }), { requestId });
});
