import { ZCreatedRun, ZMatrixSpecInput } from "@perflab/contracts";
import {
  badJson,
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

/**
 * The body is checked by createRun against this lab's catalog (createMatrixSpecSchema), which is
 * this schema with the catalog's servers and scenarios.
 */
export const POST = declareOperation({
  operationId: "createMatrixRun",
  security: writer,
  summary: "Queue a run of a benchmark matrix",
  description:
    "Validates the matrix against the server catalog, stores the run and its cells and queues one job per cell. " +
    "Send `x-perflab-client: web` only from the dashboard; every other run is recorded with source `api`.",
  request: {
    headers: idempotencyHeaders,
    body: {
      required: true,
      content: { "application/json": { schema: named("MatrixSpec", ZMatrixSpecInput) } },
    },
  },
  responses: {
    201: json("The run was queued.", named("CreatedRun", ZCreatedRun)),
    400: badJson,
    413: problem("The body is larger than 1 MiB."),
    422: problem(
      "The matrix is invalid; `errors` names each field, e.g. `loadLevels.0.vus` or " +
        "`scenarios.0.params.arguments` (tool arguments are at most 64 KiB as JSON), or " +
        "`idempotency-key` was malformed or used for another request.",
    ),
    409: idempotencyInFlight,
    429: rateLimited,
    401: refused,
    403: crossSite,
    500: serverError,
    503: problem(
      "The job queue (or, with an `Idempotency-Key`, Redis) is unavailable; the run was not created.",
    ),
  },
});
