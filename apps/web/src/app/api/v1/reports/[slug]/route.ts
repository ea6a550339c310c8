import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authenticateReader, authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { getReport } from "@/server/operations/get-report";
import { revokeReport } from "@/server/operations/revoke-report";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ slug: string }> };

export const GET = withProblems<Context>(async (request, context, requestId) => {
  const { slug } = parseParams(schema.GET, await context.params);
  const caller = await authenticateReader(getDb(), request, env.PERFLAB_ACCESS);
  const report = await getReport({ db: getDb(), slug, caller });
  return jsonResponse(report, { requestId });
});

/** Takes the permalink down: the report is deleted and its address answers 404 from now on. */
export const DELETE = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { slug } = parseParams(schema.DELETE, await context.params);
  await revokeReport({ db: getDb(), slug, caller, access: env.PERFLAB_ACCESS });
  return new Response(null, { status: 204, headers: { "x-request-id": requestId } });
});
