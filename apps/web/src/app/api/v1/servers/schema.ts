import { ZRegisteredServerDto, ZRegisteredServerInput, ZServerList } from "@perflab/contracts";
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

export const GET = declareOperation({
  operationId: "listServers",
  security: reader,
  summary: "The MCP servers a matrix may name",
  description:
    "The lab's own servers and their variants, then the registered servers of the caller's workspace " +
    "(each with `registered`: its id and kind).",
  responses: {
    200: json("The server catalog.", named("ServerList", ZServerList)),
    401: readRefused,
    500: serverError,
  },
});

export const POST = declareOperation({
  operationId: "registerServer",
  security: writer,
  summary: "Register a server in the caller's workspace: an image, a command or an endpoint",
  description:
    "An `image` runs on the worker's Docker engine under the cell's limits; a `command` runs on the " +
    "worker's machine (an admin token only); an `endpoint` is a server already running on the lab's " +
    "loopback, which perflab loads and watches but does not start (no CPU or RSS is measured).",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: named("RegisteredServerInput", ZRegisteredServerInput) } },
    },
  },
  responses: {
    201: json("The registered server.", named("RegisteredServer", ZRegisteredServerDto)),
    400: badJson,
    401: refused,
    403: problem("A `command` without an admin token (`errors[].field` is `kind`), or another site's page."),
    409: problem(
      "The name is one of the lab's servers or already registered here (`errors[].field` `name`).",
    ),
    422: problem("The definition is invalid; `errors` names each field."),
    500: serverError,
  },
});
