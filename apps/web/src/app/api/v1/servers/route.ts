import { env } from "@/env";
import { getServerCatalog, toServerInfo } from "@/server/catalog";
import { jsonResponse, withProblems } from "@/server/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withProblems(async (_request, _context, requestId) => {
  return jsonResponse(
    { servers: getServerCatalog().map(toServerInfo), defaultDriver: env.PERFLAB_DEFAULT_DRIVER },
    { requestId },
  );
});
