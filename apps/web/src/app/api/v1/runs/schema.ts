import { ZRunListPage, ZRunListQuery } from "@perflab/contracts";
import { declareOperation, json, named, problem, reader, readRefused, serverError } from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listRuns",
  security: reader,
  summary: "Recent runs, newest first",
  description: "Keyset-paginated: pass a page's `nextCursor` as `cursor` to get the next page.",
  request: { query: ZRunListQuery },
  responses: {
    200: json("One page of runs.", named("RunListPage", ZRunListPage)),
    401: readRefused,
    422: problem("A query parameter is invalid; `errors[].field` names it."),
    500: serverError,
  },
});
