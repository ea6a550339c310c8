import { ZSession, ZSignIn } from "@perflab/contracts";
import {
  badJson,
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

const Session = named("Session", ZSession);

export const GET = declareOperation({
  operationId: "getSession",
  summary: "The lab's access mode and the token this request authenticated with",
  security: writer,
  responses: {
    200: json("`token` is null without a credential.", Session),
    401: refused,
    500: serverError,
  },
});

export const POST = declareOperation({
  operationId: "signIn",
  summary: "Sign the dashboard in with a token",
  description:
    "Sets the token in an HttpOnly, SameSite=Strict cookie (Secure over https) for at most 30 days.",
  request: {
    body: { required: true, content: { "application/json": { schema: named("SignIn", ZSignIn) } } },
  },
  responses: {
    200: json("Signed in.", Session),
    400: badJson,
    401: problem("The token was refused; `errors[].field` is `token`."),
    403: crossSite,
    422: problem("The request is invalid; `errors` names the field."),
    500: serverError,
  },
});

export const DELETE = declareOperation({
  operationId: "signOut",
  summary: "Sign the dashboard out (the token stays valid; revoke it to stop it everywhere)",
  responses: { 204: { description: "The sign-in cookie is cleared.", headers }, 403: crossSite },
});
