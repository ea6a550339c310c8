import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authorizeWrite, readScope } from "@/server/auth";
import { getDb } from "@/server/db";
import { jsonResponse, withProblems } from "@/server/http";
import { cancelRun } from "@/server/operations/cancel-run";
import { getCellQueue } from "@/server/queue";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const POST = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = parseParams(schema.POST, await context.params);
  const result = await cancelRun({
    db: getDb(),
    queue: getCellQueue(),
    runId: id,
    // A run a token may not read (a private lab's other workspaces) it may not cancel either.
    workspaceId: readScope(caller, env.PERFLAB_ACCESS),
  });
  return jsonResponse(result, { status: 202, requestId });
});
