import { AppError } from "@/server/errors";
import { problemResponse, requestIdOf } from "@/server/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every path under /api that no route has, by any method: a problem+json 404, not the HTML page. */
async function notFound(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const error = new AppError(
    "not_found",
    `No API route has the path ${pathname}; the routes are listed in /api/v1/openapi.json.`,
  );
  return problemResponse(error.toProblem(requestIdOf(request)));
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
