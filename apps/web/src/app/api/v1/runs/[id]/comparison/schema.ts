import { ZRunComparison } from "@perflab/contracts";
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
  operationId: "getRunComparison",
  security: reader,
  summary: "The run's servers compared per workload and load level, rounds aggregated",
  description:
    "What the run page's comparison draws: for each workload (scenario and parameters), server and load " +
    "level, the rounds' mean, sd, CV, 95 % interval and min–max of tool calls per second, p99, peak RSS and " +
    "calls per CPU-second; each group against the fastest of its level; what differed between the compared " +
    "cells (machine, k6 build, limits); failed or cancelled cells; and how many are not finished yet. " +
    "Only succeeded cells with a summary count.",
  request: { params: ZRunParams },
  responses: {
    200: json(
      "The comparison, as it stands (a running run compares what has finished).",
      named("RunComparison", ZRunComparison),
    ),
    401: readRefused,
    404: noRun,
    500: serverError,
  },
});
