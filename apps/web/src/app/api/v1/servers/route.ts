import { env } from "@/env";
import { authorizeWrite } from "@/server/auth";
import { getServerCatalog, getWorkspaceCatalog, toServerInfo } from "@/server/catalog";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import { createRegisteredServer } from "@/server/operations/registered-servers";
import { withReader } from "@/server/reader";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withReader(async (_request, _context, requestId, reader) => {
  const servers = await getWorkspaceCatalog(getDb(), reader.caller);
  return jsonResponse(
    { servers: servers.map(toServerInfo), defaultDriver: env.PERFLAB_DEFAULT_DRIVER },
    { requestId },
  );
});

/** Registers a server in the caller's workspace (a command takes an admin token). */
export const POST = withProblems(async (request, _context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const input = await readJsonBody(request);
  const created = await createRegisteredServer({
    db: getDb(),
    caller,
    input,
    labNames: getServerCatalog().map((s) => s.name),
  });
  return jsonResponse(created, { status: 201, requestId });
});
