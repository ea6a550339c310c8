import { env } from "@/env";
import { parseParams } from "@/server/api-spec";
import { getDb } from "@/server/db";
import { holdLiveStream, releasedWhenEnded } from "@/server/rate-limit";
import { withReader } from "@/server/reader";
import { getLiveHub } from "@/server/redis";
import { checkRunEventStream, EVENT_STREAM_HEADERS, openRunEventStream } from "@/server/run-events";
import * as schema from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** A stream holds one of its caller's PERFLAB_LIVE_STREAMS_PER_CLIENT slots until it ends. */
export const GET = withReader<Context>(async (request, context, requestId, { caller, workspaceId }) => {
  const { id } = parseParams(schema.GET, await context.params);
  const release = await holdLiveStream(request, caller);
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await openRunEventStream({
      db: getDb(),
      runId: id,
      workspaceId,
      hub: getLiveHub(),
      maxStreams: env.PERFLAB_MAX_LIVE_STREAMS,
      signal: request.signal,
    });
  } catch (error) {
    release();
    throw error;
  }
  request.signal.addEventListener("abort", release, { once: true });
  return new Response(releasedWhenEnded(stream, release), {
    headers: { ...EVENT_STREAM_HEADERS, "x-request-id": requestId },
  });
});

/**
 * The stream's status and headers without the stream. Without it Next.js would run GET and drop
 * the body unread, so the stream would never be cancelled: its hub slot and heartbeat would stay
 * for the life of the process.
 */
export const HEAD = withReader<Context>(async (_request, context, requestId, { workspaceId }) => {
  const { id } = parseParams(schema.HEAD, await context.params);
  await checkRunEventStream({
    db: getDb(),
    runId: id,
    workspaceId,
    hub: getLiveHub(),
    maxStreams: env.PERFLAB_MAX_LIVE_STREAMS,
  });
  return new Response(null, { headers: { ...EVENT_STREAM_HEADERS, "x-request-id": requestId } });
});
