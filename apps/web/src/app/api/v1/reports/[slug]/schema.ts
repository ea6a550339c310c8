import { ZReport } from "@perflab/contracts";
import { z } from "zod";
import {
  crossSite,
  declareOperation,
  headers,
  json,
  named,
  problem,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

/** The path of every /api/v1/reports/{slug}/… route. */
export const ZReportParams = z.object({ slug: z.string().describe("The report's slug, from its URL.") });
export const reportRefused = problem("The token sent was refused (a private report needs a valid one).");
export const noReport = problem(
  "No report lives at this address, it has expired, or it is private and no token of its workspace was sent.",
);

export const DELETE = declareOperation({
  operationId: "revokeReport",
  security: writer,
  summary: "Take a report's permalink down for good (its address answers 404 from then on)",
  description:
    "A token of the report's workspace may revoke any of its reports; in an open lab anyone may revoke " +
    "the reports anyone there can open (not private ones). Sharing the run again makes a new permalink.",
  request: { params: ZReportParams },
  responses: {
    204: { description: "The report is gone.", headers },
    401: refused,
    403: crossSite,
    404: problem(
      "No report lives at this address, or it is private (or, in a lab that needs tokens, of another workspace) and no token of its workspace was sent.",
    ),
    500: serverError,
  },
});

export const GET = declareOperation({
  operationId: "getReport",
  security: writer,
  summary: "A report: the run and cells as frozen when it was created",
  request: { params: ZReportParams },
  responses: {
    200: json("The report.", named("Report", ZReport)),
    401: reportRefused,
    404: noReport,
    500: serverError,
  },
});
