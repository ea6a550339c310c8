import { parseParams } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { jsonResponse } from "@/server/http";
import { getRun } from "@/server/operations/get-run";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withReader<Context>(async (_request, context, requestId, { workspaceId }) => {
  const { id } = parseParams(schema.GET, await context.params);
  const result = await getRun({ db: getDb(), runId: id, workspaceId });
  return jsonResponse(result, { requestId });
});
