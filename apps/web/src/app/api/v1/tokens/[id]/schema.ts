import { ZTokenDto } from "@perflab/contracts";
import { z } from "zod";
import { declareOperation, json, named, problem, rateLimited, serverError, writer } from "@/server/api-spec";

export const DELETE = declareOperation({
  operationId: "revokeToken",
  summary: "Revoke an API token at once (it stays listed, as revoked)",
  security: writer,
  request: { params: z.object({ id: z.string().describe("The token's id.") }) },
  responses: {
    200: json("The revoked token; revoking twice changes nothing.", named("Token", ZTokenDto)),
    401: problem(
      "The API token was refused (unknown, revoked or expired), or none was sent: revoking a token " +
        "other than the caller's own takes an admin token, in every lab.",
    ),
    403: problem(
      "The token is a member's and the one to revoke is not itself, or another site's page sent it.",
    ),
    429: rateLimited,
    404: problem("No token of this workspace has this id."),
    500: serverError,
  },
});
