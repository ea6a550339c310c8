import { ZCancelledRun } from "@perflab/contracts";
import {
  crossSite,
  declareOperation,
  json,
  named,
  noRun,
  problem,
  refused,
  serverError,
  writer,
  ZRunParams,
} from "@/server/api-spec";

export const POST = declareOperation({
  operationId: "cancelRun",
  security: writer,
  summary: "Cancel a queued or running run",
  description:
    "Queued cells end `cancelled` at once and their jobs are removed; a running cell is stopped by its worker " +
    "and recorded `cancelled` without a result. Finished cells keep their results. The run's status is `cancelled`.",
  request: { params: ZRunParams },
  responses: {
    202: json(
      "The run is cancelled; running cells stop within seconds.",
      named("CancelledRun", ZCancelledRun),
    ),
    404: noRun,
    409: problem("The run has already ended."),
    401: refused,
    403: crossSite,
    500: serverError,
  },
});
