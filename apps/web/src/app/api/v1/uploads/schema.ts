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
    "The body is one of the files k6 writes, sent unchanged, plain or gzip (`content-encoding: gzip` or " +
    "a `.gz` file as is; found by its magic bytes): perflab's own NDJSON (`--out perflab=<file>`: per-second " +
    "HDR histograms), k6's `--out json` NDJSON (one Point per sample: exact percentiles per tag group and a " +
    "per-second series are built from the raw samples), or a k6 summary (`--summary-export` JSON or the " +
    "`handleSummary` data object: k6's own figures, kept as k6's, with no series and no histogram, so a " +
    "verdict cannot use them). The format is read from the content (`format` overrides it, and a body that " +
    "is not that format fails the run naming `format`). At most PERFLAB_UPLOAD_MAX_BYTES (default 1 GiB) " +
    "as sent; what was measured goes in the query string. The body is stored as it arrives and a worker " +
    "ingests it: the summary covers requests tagged phase=measure (or after the warm-up), and the run's one " +
    "cell, its summary and its per-second points are written in one transaction; the run's " +
    "`spec.upload.lacks` says what its format cannot give. Until then the run (source `api`) is " +
    "`ingesting`; output the worker refuses fails it with the line or field named in its `error`.",
  request: {
    query: ZUploadQuery,
    headers: idempotencyHeaders,
    body: {
      required: true,
      // NDJSON by its registered and common names, JSON (a summary), and gzip.
      content: Object.fromEntries(
        UPLOAD_MEDIA_TYPES.map((type) => [
          type,
          {
            schema: z
              .string()
              .describe(
                "The file as k6 wrote it: NDJSON (perflab's or --out json) or a summary's JSON, plain or gzip.",
              ),
          },
        ]),
      ),
    },
  },
  responses: {
    202: json(
      "The body was stored and its ingest queued; the run is `ingesting`, and `location` holds its URL.",
      named("CreatedUpload", ZCreatedUpload),
    ),
    413: problem("The body is larger than PERFLAB_UPLOAD_MAX_BYTES (default 1 GiB)."),
    415: problem(
      "The body is not k6 output: send `content-type: application/x-ndjson` (or `application/jsonl`, " +
        "`application/json`, `text/plain`, `application/gzip`, `application/x-gzip`, `application/octet-stream`).",
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
