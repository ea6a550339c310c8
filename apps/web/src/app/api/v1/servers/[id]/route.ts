import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { authorizeWrite } from "@/server/auth";
import { getServerCatalog } from "@/server/catalog";
import { getDb } from "@/server/db";
import { jsonResponse, readJsonBody, withProblems } from "@/server/http";
import {
  deleteRegisteredServer,
  getRegisteredServer,
  serializeServer,
  updateRegisteredServer,
} from "@/server/operations/registered-servers";
import { withReader } from "@/server/reader";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withReader<Context>(async (_request, context, requestId, reader) => {
  const { id } = parseParams(schema.GET, await context.params);
  const row = await getRegisteredServer({ db: getDb(), caller: reader.caller, id });
  return jsonResponse(serializeServer(row), { requestId });
});

/** PUT replaces the definition, PATCH changes the fields it sends. */
const update = (merge: boolean) =>
  withProblems<Context>(async (request, context, requestId) => {
    const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
    const { id } = parseParams(merge ? schema.PATCH : schema.PUT, await context.params);
    const input = await readJsonBody(request);
    const labNames = getServerCatalog().map((s) => s.name);
    const updated = await updateRegisteredServer({ db: getDb(), caller, id, input, labNames, merge });
    return jsonResponse(updated, { requestId });
  });

export const PUT = update(false);
export const PATCH = update(true);

export const DELETE = withProblems<Context>(async (request, context, requestId) => {
  const caller = await authorizeWrite(getDb(), request, env.PERFLAB_ACCESS);
  const { id } = parseParams(schema.DELETE, await context.params);
  await deleteRegisteredServer({ db: getDb(), caller, id });
  return new Response(null, { status: 204, headers: { "x-request-id": requestId } });
});
