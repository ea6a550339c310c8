import { ZVerdict, ZVerdictQuery } from "@perflab/contracts";
import {
  declareOperation,
  json,
  named,
  problem,
  reader,
  readRefused,
  serverError,
  ZRunParams,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "getRunVerdict",
  security: reader,
  summary: "The run judged against a baseline run: pass, fail or inconclusive, for CI",
  description:
    "Every server × workload × load level measured with a result in both runs, on tool calls per second, " +
    "p99 and peak RSS: a change beyond the tolerance is a regression (or an improvement) when the rounds' 95 % " +
    "intervals of the mean do not overlap, or a side has a single round; within the tolerance it is unchanged, " +
    "and beyond it with overlapping intervals (or, for throughput, a saturated k6) unclear, which does not fail. " +
    "`fail` when any check regressed. The baseline is `baseline`, else the run's `baselineRunId` (set by the " +
    "matrix or the upload). Both runs must have finished.",
  request: { params: ZRunParams, query: ZVerdictQuery },
  responses: {
    200: json("The verdict.", named("Verdict", ZVerdict)),
    401: readRefused,
    404: problem(
      "No run has this id, or no run the baseline's (`errors` names `baseline`); in a private lab, " +
        "a run of another workspace than the token's is none.",
    ),
    409: problem("One of the runs is still queued or running."),
    422: problem(
      "No baseline given or stored, the run itself, or a bad `tolerance`; `errors` names the field.",
    ),
    500: serverError,
  },
});
