import { UPLOAD_MEDIA_TYPES } from "@perflab/contracts";
import { env } from "@/env";
import { refuseMethod } from "@/server/api-routes";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { foreignHostResponse } from "@/server/hosts";
import { queryOf, requestOrigin, withProblems } from "@/server/http";
import { idempotent } from "@/server/idempotency";
import { createUpload } from "@/server/operations/create-upload";
import { enqueueIngest, getIngestQueue } from "@/server/queue";
import { rateLimit } from "@/server/rate-limit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const ACCEPTED = new Set<string>(UPLOAD_MEDIA_TYPES);

/**
 * A CI job's k6 results (perflab's `--out perflab=<file>`, or k6's summary-export, handleSummary
 * data or `--out json`, plain or gzip), stored for a worker to ingest into a run (answered
 * 202: the run is `ingesting` until the worker ends it); metadata in the query string.
 */
export const POST = withProblems(async (request, _context, requestId) => {
  // The middleware does not see an upload's body (middleware.ts): its host check is made here.
  const foreign = foreignHostResponse(request.headers, env.PERFLAB_ALLOWED_HOSTS);
  if (foreign) return foreign;
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type && !ACCEPTED.has(type)) {
    throw new AppError(
      "unsupported_media_type",
      `The body must be k6 output (NDJSON, JSON or gzip), not ${type}.`,
      [{ field: "content-type", message: `must be one of ${UPLOAD_MEDIA_TYPES.join(", ")}` }],
    );
  }
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("uploads", request, caller);
  const declared = Number(request.headers.get("content-length") ?? "");
  // A repeat is known by its query and declared length: the body streams into storage, never held.
  return idempotent({
    request,
    caller,
    requestId,
    fingerprint: `content-length ${declared}`,
    run: async () => {
      const created = await createUpload({
        db: getDb(),
        query: queryOf(request),
        body: request.body,
        ...(Number.isFinite(declared) && declared > 0 ? { declaredBytes: declared } : {}),
        maxBytes: env.PERFLAB_UPLOAD_MAX_BYTES,
        origin: requestOrigin(request),
        enqueue: (job) => enqueueIngest(getIngestQueue(), job),
        caller,
      });
      return Response.json(created, {
        status: 202,
        headers: { "x-request-id": requestId, location: created.url },
      });
    },
  });
});

/**
 * A request with a body skips the middleware here (middleware.ts), which would otherwise answer
 * another method with a 405 problem: these handlers give that same answer, so PUT, PATCH and DELETE
 * get a problem naming the method rather than Next.js's empty 405. They serve nothing: the path
 * still answers POST only (its OpenAPI entry and Allow header say so).
 */
async function refuseOtherMethods(request: Request): Promise<Response> {
  return (
    foreignHostResponse(request.headers, env.PERFLAB_ALLOWED_HOSTS) ??
    refuseMethod(request) ??
    new Response(null, { status: 405, headers: { allow: "POST" } })
  );
}

export { refuseOtherMethods as DELETE, refuseOtherMethods as PATCH, refuseOtherMethods as PUT };
