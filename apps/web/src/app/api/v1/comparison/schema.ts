import { ZRunsComparison, ZRunsComparisonQuery } from "@perflab/contracts";
import { declareOperation, json, named, problem, reader, readRefused, serverError } from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "compareRuns",
  security: reader,
  summary: "Several runs compared as one: a group per server and run",
  description:
    "The /compare page as data: the named runs' cells compared as if one run, each server labelled " +
    '"server · tag" (tag: the run\'s short commit, else what its name says beyond its servers and scenarios, ' +
    "else when it was created, to the minute; the driver, load levels or creation time are added where runs " +
    "would read alike), with " +
    "the same statistics, ratios and environment differences as a run's comparison. For a CI job comparing " +
    "its run against a baseline run.",
  request: { query: ZRunsComparisonQuery },
  responses: {
    200: json("The comparison of the runs.", named("RunsComparison", ZRunsComparison)),
    401: readRefused,
    404: problem(
      "An id names no run (in a private lab: none of the token's workspace); `errors` names each.",
    ),
    422: problem("`runs` names fewer than two or more than eight runs."),
    500: serverError,
  },
});
