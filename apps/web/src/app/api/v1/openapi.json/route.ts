import { jsonResponse } from "@/server/http";
import { getOpenApiDocument } from "@/server/openapi";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document of /api/v1, generated from the contracts' zod schemas. */
export const GET = withReader(async (_request, _context, requestId) => {
  return jsonResponse(getOpenApiDocument(), { requestId });
});
