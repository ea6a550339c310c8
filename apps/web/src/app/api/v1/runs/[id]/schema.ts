import { ZRunDetail } from "@perflab/contracts";
import {
  declareOperation,
  json,
  named,
  noRun,
  reader,
  readRefused,
  serverError,
  ZRunParams,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "getRun",
  security: reader,
  summary: "A run with its cells and each finished cell's summary",
  request: { params: ZRunParams },
  responses: {
    200: json("The run.", named("RunDetail", ZRunDetail)),
    401: readRefused,
    404: noRun,
    500: serverError,
  },
});
