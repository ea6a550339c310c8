import { ZTokenDto } from "@perflab/contracts";
import { z } from "zod";
import { declareOperation, json, named, problem, refused, serverError, writer } from "@/server/api-spec";

export const DELETE = declareOperation({
  operationId: "revokeToken",
  summary: "Revoke an API token at once (it stays listed, as revoked)",
  security: writer,
  request: { params: z.object({ id: z.string().describe("The token's id.") }) },
  responses: {
    200: json("The revoked token; revoking twice changes nothing.", named("Token", ZTokenDto)),
    401: refused,
    403: problem(
      "The token is a member's and the one to revoke is not itself (a lab that needs tokens), or another site's page sent it.",
    ),
    404: problem("No token of this workspace has this id."),
    500: serverError,
  },
});
