import { env } from "@/env";
import { getServerCatalog, toServerInfo } from "@/server/catalog";
import { jsonResponse } from "@/server/http";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withReader(async (_request, _context, requestId) => {
  return jsonResponse(
    { servers: getServerCatalog().map(toServerInfo), defaultDriver: env.PERFLAB_DEFAULT_DRIVER },
    { requestId },
  );
});
