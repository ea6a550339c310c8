import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authorizeRead, authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { deleteK6Script, getK6Script } from "@/server/operations/k6-scripts";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeRead(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = parseParams(schema.GET, await context.params);
  return jsonResponse(await getK6Script({ db: getDb(), caller, id }), { requestId });
});

export const DELETE = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = parseParams(schema.DELETE, await context.params);
  await deleteK6Script({ db: getDb(), caller, id });
  return new Response(null, { status: 204, headers: { "x-request-id": requestId } });
});
