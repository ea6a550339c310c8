import { parseParams } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { jsonResponse } from "@/server/http";
import { getComparison } from "@/server/operations/get-comparison";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withReader<Context>(async (_request, context, requestId, { workspaceId }) => {
  const { id } = parseParams(schema.GET, await context.params);
  return jsonResponse(await getComparison({ db: getDb(), runId: id, workspaceId }), { requestId });
});
