import { cellsCsv, declareOperation, serverError, writer } from "@/server/api-spec";
import { noReport, reportRefused, ZReportParams } from "../schema";

export const GET = declareOperation({
  operationId: "exportReportCells",
  security: writer,
  summary: "A report's cells as CSV, as frozen when it was created",
  request: { params: ZReportParams },
  responses: {
    200: cellsCsv("The frozen cells, the same columns as a run's export."),
    401: reportRefused,
    404: noReport,
    500: serverError,
  },
});
