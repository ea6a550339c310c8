import { z } from "zod";
import { declareOperation, problem, reader } from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "getOpenApiDocument",
  security: reader,
  summary: "This document",
  description: "Open in every lab, a private one too: it describes the API and holds no results.",
  responses: {
    200: {
      description: "The OpenAPI 3.1 document of /api/v1.",
      content: { "application/json": { schema: z.unknown() } },
    },
    401: problem(
      "The API token sent was refused (malformed, unknown, revoked or expired); `errors[].field` is " +
        "`authorization`. No token is needed, but one that is sent is checked.",
    ),
  },
});
