import { ZLiveCellStatus, ZLiveRunStatus, ZPoint, ZRunSnapshotEvent } from "@perflab/contracts";
import { z } from "zod";
import {
  declareOperation,
  headers,
  named,
  noRun,
  problem,
  rateLimited,
  reader,
  readRefused,
  serverError,
  ZRunParams,
} from "@/server/api-spec";

/** One event's data: the snapshot the stream starts with, then the live events the worker publishes. */
const ZRunEvent = z
  .discriminatedUnion("type", [
    named("RunSnapshotEvent", ZRunSnapshotEvent),
    named("LivePointEvent", ZPoint),
    named("LiveCellEvent", ZLiveCellStatus),
    named("LiveRunEvent", ZLiveRunStatus),
  ])
  .describe("One event's data, discriminated by `type`.");

export const GET = declareOperation({
  operationId: "streamRunEvents",
  security: reader,
  summary: "Live events of a run (server-sent events)",
  description:
    "A `text/event-stream`. Each `data:` line holds one JSON event: first a `snapshot` (the run, its cells " +
    "and stored points per cell), then live `point`, `cell` and `run` events as the worker publishes them. " +
    "Comment lines (`: heartbeat`) keep the connection open; `retry: 3000` sets the reconnect delay.",
  request: { params: ZRunParams },
  responses: {
    200: {
      description: "The event stream; the schema is that of one event's `data`.",
      headers,
      content: { "text/event-stream": { schema: ZRunEvent } },
    },
    401: readRefused,
    404: noRun,
    429: {
      ...rateLimited,
      description:
        "This token or client address already holds PERFLAB_LIVE_STREAMS_PER_CLIENT open streams " +
        "(`errors[].field` is `authorization` or `(client address)`); close one first.",
    },
    500: serverError,
    503: problem(
      "Live updates are unavailable: Redis did not answer, or this web process already serves " +
        "PERFLAB_MAX_LIVE_STREAMS streams.",
    ),
  },
});

export const HEAD = declareOperation({
  operationId: "checkRunEvents",
  security: reader,
  summary: "Whether a run's live events can be streamed, without opening the stream",
  description:
    "The status and headers a GET would answer, with no body: it opens no stream and takes none of " +
    "the process's PERFLAB_MAX_LIVE_STREAMS.",
  request: { params: ZRunParams },
  responses: {
    200: { description: "The run exists and a stream would be served (`text/event-stream`).", headers },
    401: readRefused,
    404: { description: "No run has this id (in a private lab: none of the token's workspace).", headers },
    500: { description: "Unexpected server error.", headers },
    503: { description: "This web process already serves PERFLAB_MAX_LIVE_STREAMS streams.", headers },
  },
});
