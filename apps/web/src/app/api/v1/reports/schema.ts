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
  json,
  named,
  problem,
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
    409: problem("The run has not finished yet."),
    422: problem("The request is invalid; `errors` names each field."),
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
