import { ZCreatedToken, ZCreateToken, ZTokenList } from "@perflab/contracts";
import {
  badJson,
  declareOperation,
  json,
  named,
  notAdmin,
  problem,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listTokens",
  summary: "The workspace's API tokens (never their secrets)",
  security: writer,
  responses: {
    200: json("Newest first.", named("TokenList", ZTokenList)),
    401: refused,
    403: notAdmin,
    500: serverError,
  },
});

/** createToken parses the body with ZCreateToken. */
export const POST = declareOperation({
  operationId: "createToken",
  summary: "Create an API token; its secret is in this response only",
  description: "perflab keeps the secret's SHA-256 and its first 12 characters, nothing else.",
  security: writer,
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: named("CreateToken", ZCreateToken) } },
    },
  },
  responses: {
    201: json("The token and its secret.", named("CreatedToken", ZCreatedToken)),
    400: badJson,
    401: refused,
    403: notAdmin,
    422: problem("The request is invalid; `errors` names each field (`name`, `expiresInDays`, `role`)."),
    500: serverError,
  },
});
