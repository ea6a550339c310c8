import { getDb } from "@/server/db";
import { readJsonBody, withProblems } from "@/server/http";
import { createReport } from "@/server/operations/create-report";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const HOST = /^([\w.-]+|\[[\da-f:.]+\])(:\d{1,5})?$/i;
const first = (value: string | null) => value?.split(",")[0]?.trim() || null;

/**
 * The origin the client reached us by: a proxy's forwarded host and scheme, else the Host header.
 * (Next's request.url says "localhost" whatever the client asked for.) Only the caller sees it.
 */
function originOf(request: Request): string {
  const url = new URL(request.url);
  const host = [first(request.headers.get("x-forwarded-host")), request.headers.get("host")].find(
    (h): h is string => !!h && HOST.test(h),
  );
  const proto = first(request.headers.get("x-forwarded-proto"));
  const scheme = proto === "http" || proto === "https" ? proto : url.protocol.slice(0, -1);
  return `${scheme}://${host ?? url.host}`;
}

export const POST = withProblems(async (request, _context, requestId) => {
  const input = await readJsonBody(request);
  const created = await createReport({ db: getDb(), input, origin: originOf(request) });
  return Response.json(created, {
    status: 201,
    headers: { "x-request-id": requestId, location: created.url },
  });
});
