import { authenticate } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { getReport } from "@/server/operations/get-report";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ slug: string }> };

export const GET = withProblems<Context>(async (request, context, requestId) => {
  const { slug } = await context.params;
  const report = await getReport({ db: getDb(), slug, caller: await authenticate(getDb(), request) });
  return jsonResponse(report, { requestId });
});
