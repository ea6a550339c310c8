import { apiPathNotFound } from "@/server/refusals";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Every path under /api that no route has (the middleware answers these first): its 404 problem. */
const notFound = async (request: Request): Promise<Response> => apiPathNotFound(request);

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
