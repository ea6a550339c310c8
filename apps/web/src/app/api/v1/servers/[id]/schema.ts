import { ZRegisteredServerDto, ZRegisteredServerInput } from "@perflab/contracts";
import { z } from "zod";
import {
  badJson,
  declareOperation,
  json,
  named,
  problem,
  reader,
  readRefused,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

const params = z.object({ id: z.string().describe("The registered server's id.") });
const notFound = problem("No registered server of the caller's workspace has this id.");
const commandRefused = problem(
  "The server is (or would become) a `command` and the token is not an admin's (`errors[].field` `kind`), or another site's page sent it.",
);

export const GET = declareOperation({
  operationId: "getRegisteredServer",
  security: reader,
  summary: "One registered server of the caller's workspace",
  request: { params },
  responses: {
    200: json("Its definition.", named("RegisteredServer", ZRegisteredServerDto)),
    401: readRefused,
    404: notFound,
    500: serverError,
  },
});

const updateResponses = {
  200: json("The server as now registered.", named("RegisteredServer", ZRegisteredServerDto)),
  400: badJson,
  401: refused,
  403: commandRefused,
  404: notFound,
  409: problem("The new name is taken (`errors[].field` `name`)."),
  422: problem("The definition is invalid; `errors` names each field."),
  500: serverError,
};

export const PUT = declareOperation({
  operationId: "replaceRegisteredServer",
  security: writer,
  summary: "Replace a registered server's definition",
  request: {
    params,
    body: {
      required: true,
      content: { "application/json": { schema: named("RegisteredServerInput", ZRegisteredServerInput) } },
    },
  },
  responses: updateResponses,
});

export const PATCH = declareOperation({
  operationId: "updateRegisteredServer",
  security: writer,
  summary: "Change some fields of a registered server; the result is validated as a whole",
  request: {
    params,
    body: { required: true, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: updateResponses,
});

export const DELETE = declareOperation({
  operationId: "deleteRegisteredServer",
  security: writer,
  summary: "Remove a registered server; cells that ran it keep their results",
  request: { params },
  responses: {
    204: { description: "Removed." },
    401: refused,
    403: commandRefused,
    404: notFound,
    500: serverError,
  },
});
