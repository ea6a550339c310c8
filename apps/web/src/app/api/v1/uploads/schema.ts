import { UPLOAD_MEDIA_TYPES, ZCreatedUpload, ZUploadQuery } from "@perflab/contracts";
import { z } from "zod";
import {
  crossSite,
  declareOperation,
  json,
  named,
  problem,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

/** createUpload parses the query string with ZUploadQuery's checks and the body line by line. */
export const POST = declareOperation({
  operationId: "uploadK6Results",
  security: writer,
  summary: "Store a CI job's k6 results as a finished run",
  description:
    "The body is the NDJSON perflab's k6 writes with `--out perflab=<file>` (a start line, one line per " +
    "second with HDR histograms, an end line), at most 50 MiB; what was measured goes in the query string. " +
    "The histograms are merged exactly as for runs the worker measures: the summary covers requests " +
    "tagged phase=measure only. The run (source `api`), its one cell, the cell's summary and its " +
    "per-second points are written in one transaction.",
  request: {
    query: ZUploadQuery,
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
    201: json("The run was stored; `location` holds its URL.", named("CreatedUpload", ZCreatedUpload)),
    413: problem("The body is larger than 50 MiB."),
    415: problem(
      "The body is not NDJSON: send `content-type: application/x-ndjson` (or `application/jsonl`, " +
        "`application/json`, `text/plain`).",
    ),
    422: problem(
      "A query parameter or the k6 output is invalid; `errors[].field` names the parameter (`durationSec` " +
        "when the output's seconds contradict it), or the line as `line <n>` (1-based), or a group as " +
        '`group {"phase":…,"method":…,"tool":…}` when its failed requests, failed operations or latencies ' +
        "contradict its requests over the whole output, or `(body)` when the start or end line is missing.",
    ),
    401: refused,
    403: crossSite,
    500: serverError,
  },
});
