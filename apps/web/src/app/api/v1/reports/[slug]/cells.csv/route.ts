import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authenticateReader } from "@/server/auth";
import { csvResponse } from "@/server/cells-csv";
import { getDb } from "@/server/db";
import { withProblems } from "@/server/http";
import { exportReportCsv } from "@/server/operations/export-cells";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ slug: string }> };

export const GET = withProblems<Context>(async (request, context, requestId) => {
  const { slug } = parseParams(schema.GET, await context.params);
  const csv = await exportReportCsv({
    db: getDb(),
    slug,
    caller: await authenticateReader(getDb(), request, env.PERFLAB_ACCESS),
  });
  return csvResponse(csv, `perflab-report-${slug}.csv`, requestId);
});
