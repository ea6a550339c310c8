import {
  cellsCsv,
  declareOperation,
  noRun,
  reader,
  readRefused,
  serverError,
  ZRunParams,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "exportRunCells",
  security: reader,
  summary: "A run's cells and their summaries as CSV, for a spreadsheet",
  request: { params: ZRunParams },
  responses: {
    200: cellsCsv("The cells as they stand: a running run has rows without a summary yet."),
    401: readRefused,
    404: noRun,
    500: serverError,
  },
});
