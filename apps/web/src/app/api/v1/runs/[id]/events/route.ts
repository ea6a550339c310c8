import { env } from "@/env";
import { getDb } from "@/server/db";
import { withProblems } from "@/server/http";
import { getLiveHub } from "@/server/redis";
import { openRunEventStream } from "@/server/run-events";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = withProblems<Context>(async (request, context, requestId) => {
  const { id } = await context.params;
  const stream = await openRunEventStream({
    db: getDb(),
    runId: id,
    hub: getLiveHub(),
    maxStreams: env.PERFLAB_MAX_LIVE_STREAMS,
    signal: request.signal,
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "x-request-id": requestId,
    },
  });
});
