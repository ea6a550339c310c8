import { jsonResponse } from "@/server/http";
import { listWorkers } from "@/server/operations/list-workers";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The running workers: which hosts take queued cells, what they run, whether they reach Docker. */
export const GET = withReader(async (_request, _context, requestId) => {
  return jsonResponse({ workers: await listWorkers() }, { requestId });
});
