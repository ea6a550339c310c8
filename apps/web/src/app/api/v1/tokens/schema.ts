import { ZCreatedToken, ZCreateToken, ZTokenList } from "@perflab/contracts";
import {
  badJson,
  declareOperation,
  idempotencyHeaders,
  idempotencyInFlight,
  json,
  named,
  notAdmin,
  problem,
  rateLimited,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listTokens",
  summary: "The workspace's API tokens (never their secrets)",
  description: "Takes an admin token, in every lab.",
  security: writer,
  responses: {
    200: json("Newest first.", named("TokenList", ZTokenList)),
    401: refused,
    403: notAdmin,
    429: rateLimited,
    500: serverError,
  },
});

/** createToken parses the body with ZCreateToken. */
export const POST = declareOperation({
  operationId: "createToken",
  summary: "Create an API token; its secret is in this response only",
  description:
    "perflab keeps the secret's SHA-256 and its first 12 characters, nothing else. An admin token mints " +
    "any token; in an open lab a request without one mints member tokens only, which stop working once " +
    "the lab needs tokens (PERFLAB_ACCESS=token or private) unless an admin keeps them.",
  security: writer,
  request: {
    headers: idempotencyHeaders,
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
    409: idempotencyInFlight,
    422: problem(
      "The request is invalid; `errors` names each field (`name`, `expiresInDays`, `role`, `idempotency-key`).",
    ),
    429: rateLimited,
    503: problem(
      "With an `Idempotency-Key`: Redis, which keeps the keys, did not answer; nothing was created.",
    ),
    500: serverError,
  },
});
