import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getWorkspaceCatalog, registeredCells, toCatalogView } from "@/server/catalog";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import { idempotent } from "@/server/idempotency";
import { createRun } from "@/server/operations/create-run";
import { getCellQueue } from "@/server/queue";
import { rateLimit } from "@/server/rate-limit";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Runs queued from the dashboard say so in this header; everything else is an API client. */
const CLIENT_HEADER = "x-perflab-client";

export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  await rateLimit("matrices", request, caller);
  const input = await readJsonBody(request);
  const source = request.headers.get(CLIENT_HEADER) === "web" ? "ui" : "api";
  return idempotent({
    request,
    caller,
    requestId,
    fingerprint: JSON.stringify({ input, source }),
    run: async () => {
      const catalog = await getWorkspaceCatalog(getDb(), caller);
      const created = await createRun({
        db: getDb(),
        caller,
        queue: getCellQueue(),
        catalog: toCatalogView(catalog),
        registered: registeredCells(catalog),
        input,
        source,
      });
      return jsonResponse(created, { status: 201, requestId });
    },
  });
});
