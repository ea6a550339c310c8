import { UPLOAD_MEDIA_TYPES, ZCreatedUpload, ZUploadQuery } from "@perflab/contracts";
import { z } from "zod";
import {
  crossSite,
  declareOperation,
  idempotencyHeaders,
  idempotencyInFlight,
  json,
  named,
  problem,
  rateLimited,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

/** createUpload checks the query string with ZUploadQuery's checks; a worker decodes the body. */
export const POST = declareOperation({
  operationId: "uploadK6Results",
  security: writer,
  summary: "Store a CI job's k6 results as a run, which a worker ingests",
  description:
    "The body is the NDJSON perflab's k6 writes with `--out perflab=<file>` (a start line, one line per " +
    "second with HDR histograms, an end line), at most 50 MiB; what was measured goes in the query string. " +
    "The body is stored as it arrives and a worker ingests it: the histograms are merged exactly as for " +
    "runs the worker measures, the summary covering requests tagged phase=measure only, and the run's one " +
    "cell, its summary and its per-second points are written in one transaction. Until then the run " +
    "(source `api`) is `ingesting`; output the worker refuses fails it with the line or field named in " +
    "its `error`.",
  request: {
    query: ZUploadQuery,
    headers: idempotencyHeaders,
    body: {
      required: true,
      // NDJSON by its registered and common names (each line is JSON, so application/json too).
      content: Object.fromEntries(
        UPLOAD_MEDIA_TYPES.map((type) => [
          type,
          { schema: z.string().describe("One JSON object per line, as perflab's k6 output wrote them.") },
        ]),
      ),
    },
  },
  responses: {
    202: json(
      "The body was stored and its ingest queued; the run is `ingesting`, and `location` holds its URL.",
      named("CreatedUpload", ZCreatedUpload),
    ),
    413: problem("The body is larger than 50 MiB."),
    415: problem(
      "The body is not NDJSON: send `content-type: application/x-ndjson` (or `application/jsonl`, " +
        "`application/json`, `text/plain`).",
    ),
    422: problem(
      "A query parameter is invalid (`errors[].field` names it; `baselineRunId` when no run has that id), " +
        "or the body is empty (`(body)`). Output the worker refuses fails the run instead: its `error` names " +
        "the parameter (`durationSec` when the output's seconds contradict it), the line as `line <n>` " +
        '(1-based), or a group as `group {"phase":…,"method":…,"tool":…}`. `idempotency-key` when it was ' +
        "malformed or used for another upload (a repeat is known by its query and `content-length`).",
    ),
    409: idempotencyInFlight,
    429: rateLimited,
    503: problem(
      "With an `Idempotency-Key`: Redis, which keeps the keys, did not answer; nothing was stored.",
    ),
    401: refused,
    403: crossSite,
    500: serverError,
  },
});
