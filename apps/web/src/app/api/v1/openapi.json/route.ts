import { jsonResponse } from "@/server/http";
import { getOpenApiDocument } from "@/server/openapi";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the contracts' zod schemas: readable without a
 * token in every lab, a private one too, as it describes the API and holds no results.
 */
export const GET = withReader(
  async (_request, _context, requestId) => jsonResponse(getOpenApiDocument(), { requestId }),
  { anyone: true },
);
