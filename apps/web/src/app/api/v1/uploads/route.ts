import { UPLOAD_MEDIA_TYPES } from "@perflab/contracts";
import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { queryOf, readTextBody, requestOrigin, withProblems } from "@/server/http";
import { createUpload, UPLOAD_MAX_BYTES } from "@/server/operations/create-upload";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const ACCEPTED = new Set<string>(UPLOAD_MEDIA_TYPES);

/** A CI job's k6 output (`--out perflab=<file>`), stored as a finished run; metadata in the query string. */
export const POST = withProblems(async (request, _context, requestId) => {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type && !ACCEPTED.has(type)) {
    throw new AppError("unsupported_media_type", `The body must be NDJSON, not ${type}.`, [
      { field: "content-type", message: `must be one of ${UPLOAD_MEDIA_TYPES.join(", ")}` },
    ]);
  }
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const body = await readTextBody(request, UPLOAD_MAX_BYTES);
  const query = queryOf(request);
  const created = await createUpload({
    db: getDb(),
    query,
    body,
    origin: requestOrigin(request),
    rollupMinSeconds: env.PERFLAB_ROLLUP_MIN_SECONDS,
    caller,
  });
  return Response.json(created, {
    status: 201,
    headers: { "x-request-id": requestId, location: created.url },
  });
});
