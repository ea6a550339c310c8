import { parseParams } from "@/server/api-spec";
import { csvResponse } from "@/server/cells-csv";
import { getDb } from "@/server/db";
import { exportRunCsv } from "@/server/operations/export-cells";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withReader<Context>(async (_request, context, requestId, { workspaceId }) => {
  const { id } = parseParams(schema.GET, await context.params);
  const csv = await exportRunCsv({ db: getDb(), runId: id, workspaceId });
  return csvResponse(csv, `perflab-run-${id}.csv`, requestId);
});
