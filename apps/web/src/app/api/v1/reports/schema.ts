import {
  reportVisibilities,
  ZCreatedReport,
  ZCreateReport,
  ZReportList,
  ZReportListQuery,
} from "@perflab/contracts";
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
  readRefused,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

const CreatedReport = named("CreatedReport", ZCreatedReport);

export const POST = declareOperation({
  operationId: "createReport",
  security: writer,
  summary: "Freeze a finished run behind an unguessable permalink",
  description:
    `Visibility is one of ${reportVisibilities.join(", ")}. A private report opens only for a caller ` +
    "with a token of its workspace, so creating one needs a token too (a 401 names `visibility`). " +
    "Sharing a run again alike returns the existing report (200) rather than a new permalink.",
  request: {
    headers: idempotencyHeaders,
    body: {
      required: true,
      content: { "application/json": { schema: named("CreateReport", ZCreateReport) } },
    },
  },
  responses: {
    200: json(
      "The run was already shared alike (same cells, snapshot, title, description and visibility): that report, its slug and `location`.",
      CreatedReport,
    ),
    201: json("The report was created; `location` holds its URL.", CreatedReport),
    400: badJson,
    404: problem("The run does not exist."),
    413: problem("The body is larger than 1 MiB."),
    409: {
      ...idempotencyInFlight,
      description:
        "The run has not finished yet, or a request with this `Idempotency-Key` is still being " +
        "answered (`errors[].field` is `idempotency-key`; retry after `Retry-After` seconds).",
    },
    422: problem(
      "The request is invalid; `errors` names each field (`idempotency-key` when it was malformed or used for another request).",
    ),
    429: rateLimited,
    503: problem(
      "With an `Idempotency-Key`: Redis, which keeps the keys, did not answer; nothing was created.",
    ),
    401: refused,
    403: crossSite,
    500: serverError,
  },
});

export const GET = declareOperation({
  operationId: "listReports",
  security: writer,
  summary: "Reports this caller may see, newest first (no snapshots)",
  description:
    "Public reports for anyone; unlisted ones too in an open lab, or with a token of their workspace; " +
    "private ones only with such a token. A private lab lists a token's own workspace's reports only, " +
    "and none without a token (a 401). Expired reports are left out.",
  request: { query: ZReportListQuery },
  responses: {
    200: json("The reports.", named("ReportList", ZReportList)),
    401: readRefused,
    422: problem("The query string is invalid; `errors` names each parameter."),
    500: serverError,
  },
});
